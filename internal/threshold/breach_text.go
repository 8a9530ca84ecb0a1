package threshold

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/human"
)

// In says what failed and since when in a run that started at start
// ("since 12.3 s into the run"): the reason a run stopped, for people,
// who read the run's time, not a Unix second. A failure since before the
// start (its first second began earlier) is since 0 s.
func (b Breach) In(start time.Time) string {
	into := max(0, time.Unix(b.Since, 0).Sub(start).Seconds())
	return fmt.Sprintf("threshold %q failed (observed %s) since %s into the run", b.Name, formatValue(b.Observed), human.Seconds(into))
}
