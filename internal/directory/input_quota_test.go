package directory

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// bigRegistration is the largest registration the per-field bounds let
// through, with characters the directory's JSON writes as six bytes each
// ("<" as \u003c): about 28 KB as listed.
func bigRegistration(i int) string {
	fill := func(n int) string { return strings.Repeat("<", n) }
	var lists []string
	for range MaxList {
		lists = append(lists, `"`+fill(MaxShort)+`"`)
	}
	l := "[" + strings.Join(lists, ",") + "]"
	name := strconv.Itoa(i) + fill(MaxName-len(strconv.Itoa(i)))
	return fmt.Sprintf(`{"name":%q,"address":%q,"groups":%s,"version":%q,"capabilities":%s}`,
		name, fill(MaxAddress), l, fill(MaxShort), l)
}

// TestRegistrationFloodKeepsTheListReadable replays the attack: a
// holder of the token registers thousands of the largest registrations
// it can. The sensor list must stay within what a client reads
// (MaxAnswer), so that the mesh goes on; each refusal is counted.
func TestRegistrationFloodKeepsTheListReadable(t *testing.T) {
	c, _, base := testServer(t)
	n := map[bool]int{false: 2500, true: 300}[raceEnabled] // 2,500 × 28 KB listed: past the client's 64 MiB
	refused := 0
	for i := range n {
		code, fe := post(t, base+"/v1/sensors", bigRegistration(i))
		if code != http.StatusOK {
			refused++
			if code != http.StatusBadRequest || fe.Msg == "" {
				t.Fatalf("registration %d: %d %+v; want 200 or 400 saying why", i, code, fe)
			}
		}
	}
	list, err := c.Sensors(context.Background(), "")
	if err != nil {
		t.Fatalf("after %d oversized registrations the sensor list is unreadable: %v", n, err)
	}
	if refused != n || len(list) != 0 {
		t.Errorf("%d of %d oversized registrations refused, %d listed; want all refused", refused, n, len(list))
	}
	want := fmt.Sprintf(`diperf_directory_refused_requests_total{route="POST /v1/sensors",code="400"} %d`, n)
	if text := metricsText(t, base); !strings.Contains(text, want+"\n") {
		t.Errorf("/metrics lacks %s:\n%s", want, text)
	}
}

func metricsText(t *testing.T, base string) string {
	t.Helper()
	b, err := io.ReadAll(get(t, base+"/metrics").Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// maxRegistration is an accepted registration as large as can be:
// MaxRegistrationJSON bytes as JSON, of six-byte characters where it can.
func maxRegistration(t *testing.T, name string) Registration {
	t.Helper()
	r := Registration{Name: name, Version: "v", TTLSeconds: 86399.999999999, Groups: make([]string, MaxList)}
	for i := range r.Groups {
		r.Groups[i] = strconv.Itoa(i)
	}
	size := func() int { return len(must(json.Marshal(r))) }
	for len(r.Address) < MaxAddress && size() <= MaxRegistrationJSON-6 {
		r.Address += "<"
	}
	for i := range r.Groups {
		for len(r.Groups[i]) < MaxShort && size() <= MaxRegistrationJSON-6 {
			r.Groups[i] += "<"
		}
	}
	r.Version += strings.Repeat("a", MaxRegistrationJSON-size())
	if n := size(); n != MaxRegistrationJSON || r.Validate() != nil {
		t.Fatalf("the largest registration is %d bytes (%v); want %d and valid", n, r.Validate(), MaxRegistrationJSON)
	}
	return r
}

// TestSensorListFitsTheClientLimit: the most sensors a directory holds,
// each as large as it takes, list within what a client reads. Checked on
// a real listing of the largest registration, stale (the longer state),
// with the longest times a lease can have.
func TestSensorListFitsTheClientLimit(t *testing.T) {
	c, clk, base := testServer(t)
	clk.Add(time.Duration(123456789)) // times with all their nanoseconds
	r := maxRegistration(t, strings.Repeat("n", 200))
	r.Version = r.Version[:len(r.Version)-1] + "é" // 2 bytes as JSON, 1 more than "a"
	if code, fe := post(t, base+"/v1/sensors", string(must(json.Marshal(r)))); code != http.StatusBadRequest {
		t.Fatalf("a registration of %d bytes: %d %+v; want 400", MaxRegistrationJSON+1, code, fe)
	}
	r = maxRegistration(t, strings.Repeat("n", 200))
	if _, err := c.Register(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	clk.Add(100 * 24 * time.Hour) // stale
	body, err := io.ReadAll(get(t, base+"/v1/sensors").Body)
	if err != nil {
		t.Fatal(err)
	}
	var listed []json.RawMessage
	if err := json.Unmarshal(body, &listed); err != nil || len(listed) != 1 || !strings.Contains(string(listed[0]), `"stale"`) {
		t.Fatalf("listing %s: %v", body, err)
	}
	t.Logf("the largest sensor lists in %d bytes; %d of them in %d bytes", len(listed[0]), MaxSensorsLimit, 2+MaxSensorsLimit*(len(listed[0])+1))
	if len(listed[0]) > MaxListedSensor {
		t.Fatalf("a sensor listed in %d bytes; MaxListedSensor is %d", len(listed[0]), MaxListedSensor)
	}
	list := func(n int) int { return 2 + n*(MaxListedSensor+1) } // [ , ]\n
	if DefaultMaxSensors > MaxSensorsLimit || list(MaxSensorsLimit) > MaxAnswer {
		t.Fatalf("%d sensors list in up to %d bytes, default %d: past the client's %d", MaxSensorsLimit,
			list(MaxSensorsLimit), DefaultMaxSensors, MaxAnswer)
	}
	if m, _ := (Options{MaxSensors: 1 << 30}).quotas(); m != MaxSensorsLimit {
		t.Errorf("Options.MaxSensors 2^30 gives %d; want it cut to %d", m, MaxSensorsLimit)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// quotaServer is a directory with quotas o on a real socket.
func quotaServer(t *testing.T, o Options) (*Client, *fakeClock, string) {
	t.Helper()
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	o.Token, o.Now = []byte(testToken), clk.Now
	hs := httptest.NewServer(NewServer(store, o).Handler())
	t.Cleanup(hs.Close)
	c, err := NewClient(hs.URL, []byte(testToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk, hs.URL
}

// TestSensorCap: past its number of sensors the directory takes no new
// name (403, counted) but still takes the registered ones' renewals and
// registrations.
func TestSensorCap(t *testing.T) {
	c, _, base := quotaServer(t, Options{MaxSensors: 5})
	registerAll(t, c, "s1", "s2", "s3", "s4", "s5")
	code, fe := post(t, base+"/v1/sensors", `{"name":"s6","address":"h:1","groups":["local"],"version":"1"}`)
	if code != http.StatusForbidden || fe.Field != "name" || !strings.Contains(fe.Msg, "5 sensors") {
		t.Fatalf("a 6th sensor past --max-sensors 5: %d %+v; want 403 saying so", code, fe)
	}
	registerAll(t, c, "s3") // a registered name registers again
	if _, err := c.Renew(context.Background(), "s5"); err != nil {
		t.Fatal(err)
	}
	if l, err := c.Sensors(context.Background(), ""); err != nil || len(l) != 5 {
		t.Fatalf("%d sensors listed (%v); want 5", len(l), err)
	}
	want := `diperf_directory_refused_requests_total{route="POST /v1/sensors",code="403"} 1`
	if text := metricsText(t, base); !strings.Contains(text, want+"\n") {
		t.Errorf("/metrics lacks %s:\n%s", want, text)
	}
}

// TestNewNamesRate: one source takes at most NewNamesPerHour new names
// at once, then one every hour/NewNamesPerHour (429 with Retry-After
// meanwhile); names it registered already are not counted.
func TestNewNamesRate(t *testing.T) {
	c, clk, base := quotaServer(t, Options{NewNamesPerHour: 3})
	registerAll(t, c, "s1", "s2", "s3")
	req, _ := http.NewRequest("POST", base+"/v1/sensors", strings.NewReader(`{"name":"s4","address":"h:1","groups":["local"],"version":"1"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1200" {
		t.Fatalf("a 4th new name at once: %d, Retry-After %q; want 429 and 1200 (s)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	registerAll(t, c, "s1", "s2") // known names pass
	clk.Add(20*time.Minute - time.Second)
	if code, _ := post(t, base+"/v1/sensors", `{"name":"s4","address":"h:1","groups":["local"],"version":"1"}`); code != http.StatusTooManyRequests {
		t.Fatalf("a new name 1 s before one is due: %d; want 429", code)
	}
	clk.Add(time.Second)
	registerAll(t, c, "s4")
	want := `diperf_directory_refused_requests_total{route="POST /v1/sensors",code="429"} 2`
	if text := metricsText(t, base); !strings.Contains(text, want+"\n") {
		t.Errorf("/metrics lacks %s:\n%s", want, text)
	}
}

// TestSensorCapUnderConcurrentRegistrations: new names registered at once
// on many connections never take the directory past its number.
func TestSensorCapUnderConcurrentRegistrations(t *testing.T) {
	c, _, base := quotaServer(t, Options{MaxSensors: 5})
	codes := make(chan int, 40)
	var wg sync.WaitGroup
	for i := range cap(codes) {
		wg.Go(func() {
			code, _ := post(t, base+"/v1/sensors", fmt.Sprintf(`{"name":"c%d","address":"h:1","groups":["local"],"version":"1"}`, i))
			codes <- code
		})
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for code := range codes {
		n[code]++
	}
	if l, err := c.Sensors(context.Background(), ""); err != nil || len(l) != 5 || n[200] != 5 || n[403] != 35 {
		t.Fatalf("%d sensors listed (%v), answers %v; want 5 taken, 35 refused (403)", len(l), err, n)
	}
}
