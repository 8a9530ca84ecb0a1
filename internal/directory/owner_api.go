package directory

import (
	"context"
	"net/http"
	"net/url"
)

// deregister is DELETE /v1/sensors/{name}: a sensor takes its own
// registration out of the list (at its clean shutdown). It must be
// signed by the key the name is bound to; a name bound to no key is
// removed by an operator only (diperf directory remove).
func (s *Server) deregister(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := checkToken("name", name, MaxName); err != nil {
		writeError(w, err)
		return
	}
	key, err := s.store.KeyOf(r.Context(), name)
	if err == nil && key == nil {
		err = &OwnerError{Field: "name", Msg: clip(name) + " is bound to no key: only an operator removes it (diperf directory remove)"}
	}
	if err == nil {
		err = s.ownedBy(r, "name", name, key)
	}
	if err == nil {
		err = s.store.Deregister(r.Context(), name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"deregistered": name})
}

// Deregister takes the sensor name out of the directory's list; the
// client must sign with the key name is bound to (SignWith). An error
// wrapping ErrNotRegistered means it was not there.
func (c *Client) Deregister(ctx context.Context, name string) error {
	var out map[string]string
	return c.do(ctx, http.MethodDelete, "/v1/sensors/"+url.PathEscape(name), nil, &out)
}
