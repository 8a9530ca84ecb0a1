package directory

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// signedPost sends body to url+path signed with key at at, with sent as
// the body on the wire (tampered when it differs), and returns the
// status and the answer.
func signedPost(t *testing.T, url, path string, body, sent []byte, key []byte, at time.Time) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(sent))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	SignRequest(req, body, key, at)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSignatureReplayWindowAndTampering checks what makes a signature
// good: a request recorded on the way and sent again is refused; one
// signed more than SignatureWindow from the directory's clock, either
// way, is refused; one whose body is not the body signed is refused.
// Nothing of them is stored.
func TestSignatureReplayWindowAndTampering(t *testing.T) {
	url, _, clk, unsigned := ownerServer(t)
	key := newKey(t)
	body, _ := json.Marshal(reg("s1", "local"))
	now := clk.Now()
	if code, msg := signedPost(t, url, "/v1/sensors", body, body, key, now); code != http.StatusOK {
		t.Fatalf("a signed registration: %d %s", code, msg)
	}
	if code, _ := signedPost(t, url, "/v1/sensors", body, body, key, now); code != http.StatusForbidden {
		t.Errorf("the same request again: %d, want 403", code)
	}
	res, _ := json.Marshal(result("s1", "s2"))
	for _, off := range []time.Duration{-SignatureWindow - time.Second, SignatureWindow + time.Second} {
		if code, msg := signedPost(t, url, "/v1/results", res, res, key, now.Add(off)); code != http.StatusForbidden {
			t.Errorf("a result signed %v from the directory's clock: %d %s, want 403", off, code, msg)
		}
	}
	forged := bytes.Replace(res, []byte(`"latency_ms":1`), []byte(`"latency_ms":900`), 1)
	if code, _ := signedPost(t, url, "/v1/results", res, forged, key, now.Add(time.Second)); code != http.StatusForbidden {
		t.Errorf("a result whose body is not the one signed: %d, want 403", code)
	}
	if rs, err := unsigned.Results(context.Background(), Query{}); err != nil || len(rs) != 0 {
		t.Errorf("%d results stored (%v), want none", len(rs), err)
	}
	clk.Add(SignatureWindow / 2) // the directory's clock may run ahead of the sensor's
	if code, msg := signedPost(t, url, "/v1/results", res, res, key, now.Add(2*time.Second)); code != http.StatusCreated {
		t.Errorf("a result signed %v behind the directory's clock: %d %s", SignatureWindow/2, code, msg)
	}
}

// TestSignatureHeaders refuses signed requests whose headers do not
// parse.
func TestSignatureHeaders(t *testing.T) {
	url, _, _, _ := ownerServer(t)
	for name, set := range map[string][2]string{
		"key":  {HeaderKey, "bm90IGEga2V5"},
		"sig":  {HeaderSignature, "c2hvcnQ="},
		"time": {HeaderSignedAt, "yesterday"},
	} {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/sensors/s1/renew", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		SignRequest(req, nil, newKey(t), time.Now())
		req.Header.Set(set[0], set[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a bad %s header: %s, want 403", name, resp.Status)
		}
	}
}
