package e2e

import (
	"math"
	"path/filepath"
	"testing"
)

// The ftp case's capacity, as TestCaseFTP configures it: a file of S
// bytes, R bytes/s per session, M sessions at once.
const (
	ftpRate       = 1_000_000 // R
	ftpMaxClients = 3         // M
	ftpFileBytes  = 1_000_000 // S
	// ftpChunk is the case's trans_chunk_size: vsftpd pauses after each
	// chunk it sends, so the first leaves unpaced and a transfer moves S
	// bytes in (S − ftpChunk)/R at the fastest.
	ftpChunk = 8192
	// ftpIdle bounds how long a freed session slot waits for the next
	// session while more clients want one than vsftpd admits: a refused
	// client retries 250 ms (client_interval) after its last try, and its
	// start (bash, curl) is allowed 50 ms more.
	ftpIdle = 0.3
)

// TestCaseFTP runs examples/cases/ftp shortened (6 clients ramping past
// vsftpd's max_clients of 3, each session capped at 1 MB/s) and holds its
// figures to the capacity configured: the aggregate MB/s while more than
// M clients ran (the plateau) within what M slots of R can move over that
// span, no client above R, Jain's index over the clients' MB/s as
// clients.csv gives them, and the clients' successful calls against
// vsftpd's transfer log per window, cumulatively and in total.
func TestCaseFTP(t *testing.T) {
	t.Parallel()
	dir, out := runCase(t, "ftp", "FTP_RATE="+itoa(ftpRate), "FTP_MAX_CLIENTS="+itoa(ftpMaxClients),
		"FTP_FILE_BYTES="+itoa(ftpFileBytes))
	t.Log(out)
	fastest := float64(ftpRate) * ftpFileBytes / (ftpFileBytes - ftpChunk) // R', bytes/s
	s := readSummary(t, dir)
	checkFTPPlateau(t, readCSV(t, filepath.Join(dir, "quanta.csv"), "active", "bytes", "ok", "rt_mean_ms"), s.QuantumS, fastest)
	xs := ftpPeakRates(t, dir, s.Peak.StartS, s.Peak.EndS, fastest)
	tr := s.Transfer
	if tr == nil {
		t.Fatal("summary.json has no transfer figures")
	}
	if tr.Clients != len(xs) || math.Abs(tr.Jain-jainOf(xs)) > 1e-3 {
		t.Errorf("summary's Jain %.4f over %d clients, clients.csv's peak MB/s give %.4f over %d",
			tr.Jain, tr.Clients, jainOf(xs), len(xs))
	}
	// No client can beat R' + S/T in the peak window of T s, so Jain's
	// index is at least Σx / (n (R' + S/T)) however vsftpd shares its slots.
	var sum float64
	for _, x := range xs {
		sum += x
	}
	if pk := s.Peak.EndS - s.Peak.StartS; pk > 0 && len(xs) > 0 {
		if floor := sum / (float64(len(xs)) * (fastest + ftpFileBytes/pk) / 1e6); tr.Jain < floor {
			t.Errorf("Jain %.3f below %.3f, what the clients' MB/s allow", tr.Jain, floor)
		}
	}
	// xferlog stamps a transfer in whole seconds, up to 1 s before its
	// client ends: validate allows an exec client's calls that end within
	// their own time (at most 1 s) of a boundary on either side of it.
	caseValidate(t, dir, "xferlog", "lines_total", 2, 10)
}

// checkFTPPlateau holds the aggregate MB/s of the quanta in which more
// than M clients were active to what M busy slots move over that span T:
// at most M × R' + M × S / T (the transfers in flight as the span opens
// end in it), at least M × S / (D + ftpIdle) − M × S / T, D the mean time
// of the successful calls there (a transfer, and its client's start).
func checkFTPPlateau(t *testing.T, quanta *table, quantumS, fastest float64) {
	t.Helper()
	var bytes, span, ok, rt float64
	for _, q := range quanta.rows {
		if q.int(t, "active") > ftpMaxClients {
			bytes += q.float(t, "bytes")
			span += quantumS
			ok += q.float(t, "ok")
			rt += q.float(t, "ok") * q.float(t, "rt_mean_ms") / 1e3
		}
	}
	if span == 0 || ok == 0 {
		t.Fatalf("no quantum had more than %d clients active and a successful call", ftpMaxClients)
	}
	edge := ftpMaxClients * ftpFileBytes / span
	hi := ftpMaxClients*fastest + edge
	lo := ftpMaxClients*ftpFileBytes/(rt/ok+ftpIdle) - edge
	if p := bytes / span; p < lo || p > hi {
		t.Errorf("plateau %.3f MB/s over %.0f s, want %.3f to %.3f (M × R = %d MB/s)", p/1e6, span, lo/1e6, hi/1e6,
			ftpMaxClients*ftpRate/1_000_000)
	}
}

// ftpPeakRates returns the peak-window MB/s of each client of clients.csv
// that ran through the whole peak window [from, to] s, and fails the test
// for any client whose MB/s over its run is above R' (fastest, bytes/s).
func ftpPeakRates(t *testing.T, dir string, from, to, fastest float64) []float64 {
	t.Helper()
	clients := readCSV(t, filepath.Join(dir, "clients.csv"), "start_s", "end_s", "mb_per_s", "peak_mb_per_s")
	var xs []float64
	for _, c := range clients.rows {
		if mbs := c.float(t, "mb_per_s"); mbs > fastest/1e6 {
			t.Errorf("client %s moved %.3f MB/s over its run, above R' = %.3f", c.str(t, "index"), mbs, fastest/1e6)
		}
		if c.float(t, "start_s") <= from+1e-3 && c.float(t, "end_s") >= to-1e-3 { // clients.csv rounds to 0.1 ms
			xs = append(xs, c.float(t, "peak_mb_per_s"))
		}
	}
	return xs
}

// jainOf is Jain's fairness index of xs.
func jainOf(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum, sq = sum+x, sq+x*x
	}
	if len(xs) == 0 || sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}
