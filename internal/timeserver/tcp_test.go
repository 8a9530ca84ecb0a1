package timeserver

import (
	"io"
	"net"
	"testing"
	"time"
)

func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(patience))
	return c
}

func TestServeTCPTwoRequestsOnOneConnection(t *testing.T) {
	t.Parallel()
	_, addr := startTCP(t, Config{})
	c := dialTCP(t, addr)
	if _, err := c.Write(append(AppendRequest(nil, 1), AppendRequest(nil, 2)...)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2*ResponseSize)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{1, 2} {
		t1, t2, t3, err := ParseResponse(buf[i*ResponseSize : (i+1)*ResponseSize])
		if err != nil || t1 != want || t2 > t3 {
			t.Errorf("response %d = %d, %d, %d, %v", i, t1, t2, t3, err)
		}
	}
}

func TestServeTCPMalformedClosesThatConnectionOnly(t *testing.T) {
	t.Parallel()
	s, addr := startTCP(t, Config{})
	good, bad := dialTCP(t, addr), dialTCP(t, addr)
	req := AppendRequest(nil, 7)
	req[0] = 'X'
	if _, err := bad.Write(req); err != nil {
		t.Fatal(err)
	}
	if n, err := bad.Read(make([]byte, 64)); err != io.EOF {
		t.Fatalf("bad connection read %d bytes, err %v; want EOF", n, err)
	}
	if _, err := good.Write(AppendRequest(nil, 8)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, ResponseSize)
	if _, err := io.ReadFull(good, buf); err != nil {
		t.Fatalf("good connection: %v", err)
	}
	if t1, _, _, err := ParseResponse(buf); err != nil || t1 != 8 {
		t.Fatalf("good connection answer t1 %d, %v", t1, err)
	}
	// The server counts an answer once it is written: the client may read
	// it first.
	if st := waitStats(t, s, 2); st != (Stats{Answered: 1, Malformed: 1}) {
		t.Errorf("stats %+v, want Answered 1 Malformed 1", st)
	}
}

func TestServeTCPRateLimit(t *testing.T) {
	t.Parallel()
	s, addr := startTCP(t, Config{RatePerSource: 1, BurstPerSource: 2})
	c := dialTCP(t, addr)
	for i := range 5 {
		if _, err := c.Write(AppendRequest(nil, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if st := waitStats(t, s, 5); st.Answered != 2 || st.RateLimited != 3 {
		t.Errorf("stats %+v, want Answered 2 RateLimited 3", st)
	}
}
