package monitor

import (
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

// HostCollector exposes this host's figures under node_exporter's names,
// read from /proc at each scrape: what `diperf monitor` serves on a host
// with no exporter. It has node_cpu_seconds_total, the memory total and
// available, network bytes in and out, processes running and blocked,
// the pids and threads, and the 1-minute load.
type HostCollector struct {
	fs procfs.FS
}

// NewHostCollector reads the proc file system at mount (e.g. /proc).
func NewHostCollector(mount string) (*HostCollector, error) {
	fs, err := procfs.NewFS(mount)
	if err != nil {
		return nil, fmt.Errorf("monitor: %s: %w", mount, err)
	}
	return &HostCollector{fs: fs}, nil
}

// descs of the metrics, with node_exporter's help texts.
var (
	descCPU       = prometheus.NewDesc("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.", []string{"cpu", "mode"}, nil)
	descMemTotal  = prometheus.NewDesc("node_memory_MemTotal_bytes", "Memory information field MemTotal_bytes.", nil, nil)
	descMemAvail  = prometheus.NewDesc("node_memory_MemAvailable_bytes", "Memory information field MemAvailable_bytes.", nil, nil)
	descRx        = prometheus.NewDesc("node_network_receive_bytes_total", "Network device statistic receive_bytes.", []string{"device"}, nil)
	descTx        = prometheus.NewDesc("node_network_transmit_bytes_total", "Network device statistic transmit_bytes.", []string{"device"}, nil)
	descRunning   = prometheus.NewDesc("node_procs_running", "Number of processes in runnable state.", nil, nil)
	descBlocked   = prometheus.NewDesc("node_procs_blocked", "Number of processes blocked waiting for I/O to complete.", nil, nil)
	descPids      = prometheus.NewDesc("node_processes_pids", "Number of PIDs", nil, nil)
	descThreads   = prometheus.NewDesc("node_processes_threads", "Allocated threads in system", nil, nil)
	descLoad1     = prometheus.NewDesc("node_load1", "1m load average.", nil, nil)
	descScrapeErr = prometheus.NewDesc("diperf_monitor_read_errors_total", "Reads of /proc that failed during this scrape.", []string{"file"}, nil)
)

// Describe sends every metric's description.
func (h *HostCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCPU, descMemTotal, descMemAvail, descRx, descTx, descRunning, descBlocked,
		descPids, descThreads, descLoad1, descScrapeErr} {
		ch <- d
	}
}

// Collect reads /proc and sends the metrics; a file that cannot be read
// leaves its metrics out and counts in diperf_monitor_read_errors_total.
func (h *HostCollector) Collect(ch chan<- prometheus.Metric) {
	fail := func(file string, err error) {
		if err != nil {
			ch <- prometheus.MustNewConstMetric(descScrapeErr, prometheus.GaugeValue, 1, file)
		}
	}
	fail("stat", h.stat(ch))
	fail("meminfo", h.memory(ch))
	fail("net/dev", h.network(ch))
	fail("loadavg", h.load(ch))
	fail("pid", h.processes(ch))
}

// stat sends the CPU seconds by CPU and mode, and the processes running
// and blocked.
func (h *HostCollector) stat(ch chan<- prometheus.Metric) error {
	st, err := h.fs.Stat()
	if err != nil {
		return err
	}
	for id, c := range st.CPU {
		cpu := strconv.FormatInt(id, 10)
		for _, m := range []struct {
			mode string
			v    float64
		}{{"idle", c.Idle}, {"iowait", c.Iowait}, {"irq", c.IRQ}, {"nice", c.Nice}, {"softirq", c.SoftIRQ},
			{"steal", c.Steal}, {"system", c.System}, {"user", c.User}} {
			ch <- prometheus.MustNewConstMetric(descCPU, prometheus.CounterValue, m.v, cpu, m.mode)
		}
	}
	ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, float64(st.ProcessesRunning))
	ch <- prometheus.MustNewConstMetric(descBlocked, prometheus.GaugeValue, float64(st.ProcessesBlocked))
	return nil
}

// memory sends the memory total and available, in bytes.
func (h *HostCollector) memory(ch chan<- prometheus.Metric) error {
	mi, err := h.fs.Meminfo()
	if err != nil {
		return err
	}
	if mi.MemTotalBytes == nil || mi.MemAvailableBytes == nil {
		return fmt.Errorf("meminfo has no MemTotal or MemAvailable")
	}
	ch <- prometheus.MustNewConstMetric(descMemTotal, prometheus.GaugeValue, float64(*mi.MemTotalBytes))
	ch <- prometheus.MustNewConstMetric(descMemAvail, prometheus.GaugeValue, float64(*mi.MemAvailableBytes))
	return nil
}

// network sends the bytes in and out of every interface.
func (h *HostCollector) network(ch chan<- prometheus.Metric) error {
	nd, err := h.fs.NetDev()
	if err != nil {
		return err
	}
	for dev, l := range nd {
		ch <- prometheus.MustNewConstMetric(descRx, prometheus.CounterValue, float64(l.RxBytes), dev)
		ch <- prometheus.MustNewConstMetric(descTx, prometheus.CounterValue, float64(l.TxBytes), dev)
	}
	return nil
}

// load sends the 1-minute load average.
func (h *HostCollector) load(ch chan<- prometheus.Metric) error {
	la, err := h.fs.LoadAvg()
	if err != nil {
		return err
	}
	ch <- prometheus.MustNewConstMetric(descLoad1, prometheus.GaugeValue, la.Load1)
	return nil
}

// processes sends the number of processes and of their threads (a
// process that ends while it is read is left out).
func (h *HostCollector) processes(ch chan<- prometheus.Metric) error {
	procs, err := h.fs.AllProcs()
	if err != nil {
		return err
	}
	threads := 0
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			threads += st.NumThreads
		}
	}
	ch <- prometheus.MustNewConstMetric(descPids, prometheus.GaugeValue, float64(len(procs)))
	ch <- prometheus.MustNewConstMetric(descThreads, prometheus.GaugeValue, float64(threads))
	return nil
}
