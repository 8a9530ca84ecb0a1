package directory

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStrictJSONRefused: what encoding/json would take silently (trailing
// data, a key twice, a key in another case, invalid UTF-8) and names that
// would show as something else (format characters, U+FFFD) are refused
// with 400, as docs/sensors.md says, and nothing is stored.
func TestStrictJSONRefused(t *testing.T) {
	c, _, base := testServer(t)
	registerAll(t, c, "a", "b")
	valid := resultBody("")
	regBody := `{"name":%q,"address":"h:1","groups":["local"],"version":"1"}`
	cases := []struct{ path, body, field string }{
		{"/v1/results", valid + "]", ""},
		{"/v1/results", valid + "}", ""},
		{"/v1/results", valid + " x", ""},
		{"/v1/results", strings.Replace(valid, `"src":"a"`, `"src":"a","src":"b"`, 1), "src"},
		{"/v1/results", strings.Replace(valid, `"src":"a"`, `"Src":"a"`, 1), "Src"},
		{"/v1/results", strings.Replace(valid, `"bandwidth_bps"`, `"BANDWIDTH_BPS"`, 1), "BANDWIDTH_BPS"},
		{"/v1/results", strings.Replace(valid, `"dst":"b"`, `"dst":"b","dst":"c"`, 1), "dst"},
		{"/v1/sensors", strings.Replace(fmt.Sprintf(regBody, "h"), `"groups"`, `"Groups"`, 1), "Groups"},
		{"/v1/sensors", fmt.Sprintf(regBody, "h") + "]", ""},
		{"/v1/sensors", fmt.Sprintf(`{"name":"h%s","address":"h:1","groups":["local"],"version":"1"}`, "\xff"), ""},
		{"/v1/sensors", `{"name":"h\ud800","address":"h:1","groups":["local"],"version":"1"}`, "name"},
	}
	for _, name := range []string{"h\u200b", "h\u202egnp", "\ufeffh", "h\u00a0x", "h\ue000", "h\u2028", "h\ufffd", "h\u0378"} {
		cases = append(cases, struct{ path, body, field string }{"/v1/sensors", fmt.Sprintf(regBody, name), "name"})
	}
	for _, tc := range cases {
		if code, fe := post(t, base+tc.path, tc.body); code != http.StatusBadRequest || fe.Field != tc.field || fe.Msg == "" {
			t.Errorf("POST %s %+q: %d %+v; want 400 naming %q", tc.path, tc.body, code, fe, tc.field)
		}
	}
	if rs, _ := c.Results(context.Background(), Query{}); len(rs) != 0 {
		t.Errorf("%d results stored from refused bodies: %+v", len(rs), rs)
	}
	if ss, _ := c.Sensors(context.Background(), ""); len(ss) != 2 {
		t.Errorf("sensors %+v: want only a and b", ss)
	}
	// what stays accepted: printable names in any script, a body with white space after it
	for _, name := range []string{"hôte-1.example", "узел", "ホスト", `we"ird\name`} {
		if code, fe := post(t, base+"/v1/sensors", fmt.Sprintf(regBody, name)+"\n"); code != http.StatusOK {
			t.Errorf("registering %q: %d %+v; want 200", name, code, fe)
		}
	}
}

// TestSlowBodyIs408: a client that sends its headers and then too little
// of its body before the server's read timeout gets 408, not 500, and the
// refusal is counted in /metrics.
func TestSlowBodyIs408(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	hs := httptest.NewUnstartedServer(NewServer(store, Options{Token: []byte(testToken)}).Handler())
	hs.Config.ReadTimeout = 200 * time.Millisecond // the body never completes: any timeout shows it
	hs.Start()
	t.Cleanup(hs.Close)
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{\"src\":", testToken)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) //nolint:errcheck // a bound on a broken test only
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a slow body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("a body sent too slowly: %d; want 408", resp.StatusCode)
	}
	m := get(t, hs.URL+"/metrics")
	var text strings.Builder
	bufio.NewReader(m.Body).WriteTo(&text) //nolint:errcheck // checked by content
	want := `diperf_directory_refused_requests_total{route="POST /v1/results",code="408"} 1`
	if !strings.Contains(text.String(), want+"\n") {
		t.Errorf("/metrics lacks %s:\n%s", want, text.String())
	}
	checkExposition(t, text.String())
	if path, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = strings.NewReader(text.String())
		out, err := cmd.CombinedOutput()
		checkPromtool(t, err, string(out), text.String())
	}
}
