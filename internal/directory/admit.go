package directory

import (
	"context"
	"net/http"
	"time"
)

// admitPair checks, for a result or forecast, what only the server knows:
// its time is not ahead of the directory's clock, and both of its sensors
// are registered (a result between names no sensor holds would be listed
// and forecast as if they existed).
func (s *Server) admitPair(ctx context.Context, src, dst, timeField string, at time.Time) error {
	if err := notAhead(timeField, at, s.now()); err != nil {
		return err
	}
	for _, p := range []struct{ field, name string }{{"src", src}, {"dst", dst}} {
		known, err := s.store.Registered(ctx, p.name)
		if err != nil {
			return err
		}
		if !known && p.field == "src" { // the writer itself: it registers again, then sends it again
			return refusal(http.StatusNotFound, "src", "%q is not a registered sensor; register again", clip(p.name))
		}
		if !known { // a peer no longer registered: the result will never be taken
			return fieldErr(p.field, "%q is not a registered sensor", clip(p.name))
		}
	}
	return nil
}
