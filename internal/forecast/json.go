package forecast

import (
	"encoding/json"

	"github.com/diperf/diperf/internal/jsonnum"
)

// MarshalJSON writes the score with mae and mse null when no forecast
// was scored (NaN) or they overflowed, never failing the document.
func (s Score) MarshalJSON() ([]byte, error) {
	type plain Score
	return json.Marshal(struct {
		plain
		MAE *float64 `json:"mae"`
		MSE *float64 `json:"mse"`
	}{plain(s), jsonnum.Ptr(s.MAE), jsonnum.Ptr(s.MSE)})
}

// MarshalJSON writes the score with its errors null where they are not
// finite, as Score does.
func (s PeriodScore) MarshalJSON() ([]byte, error) {
	type plain PeriodScore
	return json.Marshal(struct {
		plain
		MAE    *float64 `json:"mae"`
		MSE    *float64 `json:"mse"`
		MinMAE *float64 `json:"min_mae"`
		MaxMAE *float64 `json:"max_mae"`
	}{plain(s), jsonnum.Ptr(s.MAE), jsonnum.Ptr(s.MSE), jsonnum.Ptr(s.MinMAE), jsonnum.Ptr(s.MaxMAE)})
}
