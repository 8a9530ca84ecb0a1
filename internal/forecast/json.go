package forecast

import (
	"encoding/json"
	"math"
)

// MarshalJSON writes the score with mae and mse null when no forecast
// was scored (NaN) or they overflowed, never failing the document.
func (s Score) MarshalJSON() ([]byte, error) {
	type plain Score
	return json.Marshal(struct {
		plain
		MAE *float64 `json:"mae"`
		MSE *float64 `json:"mse"`
	}{plain(s), orNull(s.MAE), orNull(s.MSE)})
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
	}{plain(s), orNull(s.MAE), orNull(s.MSE), orNull(s.MinMAE), orNull(s.MaxMAE)})
}

// orNull is &v when v is finite, else nil (null in JSON): jsonnum.Ptr,
// which this leaf package cannot import.
func orNull(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
