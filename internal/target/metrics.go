package target

import (
	"bufio"
	"io"
	"strconv"
)

// metric is one Prometheus sample with its metadata.
type metric struct {
	name, help, kind, value string
}

// metrics returns the current samples, in exposition order.
func (s *Server) metrics() []metric {
	st := s.Stats()
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []metric{
		{"diperf_target_served_total", "Calls completed.", "counter", itoa(st.Served)},
		{"diperf_target_rejected_total", "Calls answered 503 because the queue was full.", "counter", itoa(st.Rejected)},
		{"diperf_target_in_service", "Calls currently holding a service slot.", "gauge", itoa(int64(st.InService))},
		{"diperf_target_queued", "Calls currently waiting for a service slot.", "gauge", itoa(int64(st.Queued))},
		{"diperf_target_workers", "Number of service slots (C).", "gauge", itoa(int64(s.cfg.Workers))},
		{"diperf_target_service_time_seconds", "Mean service time per call (S).", "gauge",
			strconv.FormatFloat(s.cfg.ServiceTime.Seconds(), 'g', -1, 64)},
	}
}

// writeMetrics writes the metrics in Prometheus text exposition format.
func (s *Server) writeMetrics(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, m := range s.metrics() {
		bw.WriteString("# HELP " + m.name + " " + m.help + "\n")
		bw.WriteString("# TYPE " + m.name + " " + m.kind + "\n")
		bw.WriteString(m.name + " " + m.value + "\n")
	}
	return bw.Flush()
}
