package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestDirectoryIdleFlood runs the directory with 256 open files at most
// (soft and hard) and holds 400 idle connections to it, each from its own
// source address: a member's requests (with the token) are each answered
// within 3 s, again and again while the flood lasts. The same when each
// connection sends one byte of a request and then nothing.
//
// The directory then holds at most 96 connections not yet proved, and
// the flood, dialing again 200 ms after each close, replaces them all
// every 50 ms or so: a member's new connection whose request has not come
// whole by then (its process starved of CPU on a busy machine) is closed
// with the flood's, before its request was read, and the member sends it
// again on a new one, as a sensor does (its registration is tried again,
// its results kept and sent again). The test does the same within the 3 s.
func TestDirectoryIdleFlood(t *testing.T) {
	for name, say := range map[string][]byte{"silent": nil, "one-byte": []byte("G")} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			directoryFlood(t, say)
		})
	}
}

// directoryFlood floods a directory limited to 256 files with 400
// connections that each send say, then nothing, and checks a member's
// requests.
func directoryFlood(t *testing.T, say []byte) {
	dir := t.TempDir()
	tok, addr := filepath.Join(dir, "token"), freeAddr(t)
	if err := os.WriteFile(tok, []byte("e2e-directory-flood-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", limitedCmd(256, "directory", "--listen", addr, "--db", filepath.Join(dir, "d.db"), "--token-file", tok)...)
	waitServing(t, cmd, "serving http://")
	flood := startFlood(t, addr, 400, say)
	flood.waitOpen(t, 400)
	tries := 0
	for i := range 5 {
		start := time.Now()
		for {
			tries++
			err := memberRequest(addr, time.Until(start.Add(3*time.Second)))
			if err == nil {
				break
			}
			if time.Since(start) >= 3*time.Second || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("request %d of a member under a flood: %v after %v", i, err, time.Since(start))
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("5 requests in %d tries; flood: %d connections made, %d closed by the directory", tries, flood.opened.Load(), flood.closed.Load())
}

// memberRequest lists the sensors on a new connection with the token,
// within timeout.
func memberRequest(addr string, timeout time.Duration) error {
	hc := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := directory.NewClient("http://"+addr, []byte("e2e-directory-flood-token-0123456789"), hc)
	if err != nil {
		return err
	}
	_, err = c.Sensors(context.Background(), "")
	return err
}

// waitServing starts cmd and waits (10 s at most) until its stderr says
// want; the test's end kills it.
func waitServing(t *testing.T, cmd *exec.Cmd, want string) *lockedBuffer {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%v did not say %q within 10 s:\n%s", cmd.Args, want, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return stderr
}

// TestDirectoryBadTLS starts the directory with a bad certificate or key:
// each is refused with exit 2, before the directory says it serves and
// before it makes its database.
func TestDirectoryBadTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := writeCert(t, dir, "good", time.Now().Add(time.Hour))
	_, otherKey := writeCert(t, dir, "other", time.Now().Add(time.Hour))
	expired, expiredKey := writeCert(t, dir, "expired", time.Now().Add(-time.Minute))
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]string{"junk cert": {junk, key}, "junk key": {cert, junk},
		"key of another cert": {cert, otherKey}, "expired": {expired, expiredKey}, "missing": {cert, key + ".none"}} {
		db := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".db")
		r := diperf(t, 10*time.Second, "directory", "--listen", freeAddr(t), "--db", db,
			"--token-file", filepath.Join(dir, "token"), "--tls-cert", pair[0], "--tls-key", pair[1])
		if r.code != 2 || strings.Contains(r.stderr, "serving") || !strings.Contains(r.stderr, "TLS certificate") {
			t.Errorf("%s: exit %d, want 2 and the certificate named, nothing served\n%s", name, r.code, r.stderr)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("%s: the database was made", name)
		}
	}
}

// TestDirectoryPrivateCA serves the directory over HTTPS with a
// certificate no system trusts: netmap with --ca-file naming it answers;
// without, it fails on the certificate, naming it.
func TestDirectoryPrivateCA(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := writeCert(t, dir, "ca", time.Now().Add(time.Hour))
	tok, addr := filepath.Join(dir, "token"), freeAddr(t)
	cmd := exec.Command(bin, "directory", "--listen", addr, "--db", filepath.Join(dir, "d.db"), "--token-file", tok,
		"--tls-cert", cert, "--tls-key", key)
	waitServing(t, cmd, "serving https://")
	url := "https://" + addr
	if r := diperf(t, 20*time.Second, "netmap", "--directory", url, "--token-file", tok, "--ca-file", cert, "--json"); r.code != 0 {
		t.Errorf("netmap --ca-file: exit %d\n%s", r.code, r.stderr)
	}
	r := diperf(t, 20*time.Second, "netmap", "--directory", url, "--token-file", tok, "--json")
	if r.code == 0 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("netmap without --ca-file: exit %d, want a failure naming the certificate\n%s", r.code, r.stderr)
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 valid until
// notAfter, and its key, to dir as NAME.pem and NAME.key.
func writeCert(t *testing.T, dir, name string, notAfter time.Time) (certFile, keyFile string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	for f, b := range map[string][]byte{certFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyFile: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}
