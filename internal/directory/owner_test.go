package directory

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// ownerServer starts a directory on a loopback socket, its clock the real
// one's time at the start (signatures are made at the real time), and
// returns its URL, its store, its clock, and an unsigned client.
func ownerServer(t *testing.T) (string, *Store, *fakeClock, *Client) {
	t.Helper()
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clk := &fakeClock{t: time.Now()}
	hs := httptest.NewServer(NewServer(store, Options{Token: []byte(testToken), Now: clk.Now}).Handler())
	t.Cleanup(hs.Close)
	c := signedClient(t, hs.URL, nil)
	if _, err := c.Register(context.Background(), reg("s2", "local")); err != nil { // the tests' results' destination
		t.Fatal(err)
	}
	return hs.URL, store, clk, c
}

// signedClient is a client of url with the token, signing with key (nil:
// unsigned).
func signedClient(t *testing.T, url string, key ed25519.PrivateKey) *Client {
	t.Helper()
	c, err := NewClient(url, []byte(testToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != nil {
		c.SignWith(key)
	}
	return c
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// forbidden fails the test unless err is the directory's 403.
func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	var api *APIError
	if !errors.As(err, &api) || api.Status != http.StatusForbidden {
		t.Errorf("%s: %v; want 403 Forbidden", what, err)
	}
}

// addressOf is the address the directory lists for name ("" if none).
func addressOf(t *testing.T, c *Client, name string) string {
	t.Helper()
	ss, err := c.Sensors(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == name {
			return s.Address
		}
	}
	return ""
}

func result(src, dst string) Result {
	return Result{Src: src, Dst: dst, Kind: KindLatency, LatencyMs: 1, LatencyP50Ms: 1, LatencyP90Ms: 1, LatencyP99Ms: 1,
		TestTimeS: 1, MeasuredAt: time.Now().UTC()}
}

// TestNameBelongsToItsKey registers s1 signed by its key: a holder of the
// token with another key, or with none, can neither register s1 again
// (to another address), renew it, deregister it, nor write results or
// forecasts as s1; s1 keeps its address, and its own key does all of it.
func TestNameBelongsToItsKey(t *testing.T) {
	url, _, _, unsigned := ownerServer(t)
	ctx := context.Background()
	owner := signedClient(t, url, newKey(t))
	r := reg("s1", "local")
	r.Address = "127.0.0.1:7001"
	if _, err := owner.Register(ctx, r); err != nil {
		t.Fatal(err)
	}
	for who, c := range map[string]*Client{"another key": signedClient(t, url, newKey(t)), "no key": unsigned} {
		evil := r
		evil.Address = "127.0.0.66:9"
		_, err := c.Register(ctx, evil)
		forbidden(t, who+": register", err)
		_, err = c.Renew(ctx, "s1")
		forbidden(t, who+": renew", err)
		forbidden(t, who+": deregister", c.Deregister(ctx, "s1"))
		_, err = c.AddResult(ctx, result("s1", "s2"))
		forbidden(t, who+": a result from s1", err)
		_, err = c.AddForecast(ctx, Forecast{Src: "s1", Dst: "s2", Kind: KindLatency, Value: 1, Method: "last", MadeAt: time.Now().UTC()})
		forbidden(t, who+": a forecast from s1", err)
	}
	if a := addressOf(t, unsigned, "s1"); a != r.Address {
		t.Fatalf("s1 is listed at %q after the attacks, want %q", a, r.Address)
	}
	if _, err := owner.Renew(ctx, "s1"); err != nil {
		t.Errorf("the owner's renewal: %v", err)
	}
	if _, err := owner.AddResult(ctx, result("s1", "s2")); err != nil {
		t.Errorf("the owner's result: %v", err)
	}
	r.Address = "127.0.0.1:7002"
	if _, err := owner.Register(ctx, r); err != nil || addressOf(t, unsigned, "s1") != r.Address {
		t.Errorf("the owner's new address: %v", err)
	}
}

// TestDeregisterKeepsTheName has the owner deregister: s1 leaves the
// list, another key still cannot take it, and the owner registers again.
func TestDeregisterKeepsTheName(t *testing.T) {
	url, _, _, unsigned := ownerServer(t)
	ctx := context.Background()
	owner, other := signedClient(t, url, newKey(t)), signedClient(t, url, newKey(t))
	if _, err := owner.Register(ctx, reg("s1", "local")); err != nil {
		t.Fatal(err)
	}
	if err := owner.Deregister(ctx, "s1"); err != nil {
		t.Fatalf("deregistering: %v", err)
	}
	if a := addressOf(t, unsigned, "s1"); a != "" {
		t.Fatalf("s1 still listed (%s) after it deregistered", a)
	}
	if err := owner.Deregister(ctx, "s1"); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("deregistering again: %v, want ErrNotRegistered", err)
	}
	_, err := other.Register(ctx, reg("s1", "local"))
	forbidden(t, "another key registering a deregistered name", err)
	if _, err := owner.Register(ctx, reg("s1", "local")); err != nil {
		t.Errorf("the owner registering again: %v", err)
	}
}

// TestRemoveFreesTheName has an operator remove s1 (its key lost): the
// next key to register it owns it; s1's results stay.
func TestRemoveFreesTheName(t *testing.T) {
	url, store, _, unsigned := ownerServer(t)
	ctx := context.Background()
	lost, next := signedClient(t, url, newKey(t)), signedClient(t, url, newKey(t))
	if _, err := lost.Register(ctx, reg("s1", "local")); err != nil {
		t.Fatal(err)
	}
	if _, err := lost.AddResult(ctx, result("s1", "s2")); err != nil {
		t.Fatal(err)
	}
	if found, err := store.Remove(ctx, "s1"); !found || err != nil {
		t.Fatalf("Remove: %v, %v", found, err)
	}
	if found, _ := store.Remove(ctx, "s1"); found {
		t.Error("Remove found s1 again")
	}
	if _, err := next.Register(ctx, reg("s1", "local")); err != nil {
		t.Fatalf("a new key after the removal: %v", err)
	}
	_, err := lost.Renew(ctx, "s1")
	forbidden(t, "the old key after the removal", err)
	if rs, err := unsigned.Results(ctx, Query{Src: "s1"}); err != nil || len(rs) != 1 {
		t.Errorf("s1's results after the removal: %d, %v; want 1", len(rs), err)
	}
}

// TestUnsignedNameBoundAtFirstSignature has a name registered without a
// key (a sensor before the upgrade): it is open until the first signed
// registration binds it; from then on unsigned requests for it are 403.
func TestUnsignedNameBoundAtFirstSignature(t *testing.T) {
	url, _, _, unsigned := ownerServer(t)
	ctx := context.Background()
	if _, err := unsigned.Register(ctx, reg("old", "local")); err != nil {
		t.Fatal(err)
	}
	if _, err := unsigned.Renew(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	forbidden(t, "deregistering a name bound to no key", unsigned.Deregister(ctx, "old"))
	if _, err := signedClient(t, url, newKey(t)).Register(ctx, reg("old", "local")); err != nil {
		t.Fatal(err)
	}
	_, err := unsigned.Renew(ctx, "old")
	forbidden(t, "an unsigned renewal of a bound name", err)
}
