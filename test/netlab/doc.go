// Package netlab is a test bed of N "hosts" on one machine, for end-to-end
// tests of diperf's distributed testbeds (ssh provider, partitions, slow
// links, full disks). It needs root and skips the test otherwise.
//
// Each host is a network namespace on a bridge, with its own address, its
// own real OpenSSH sshd on port 22, its own hostname (UTS namespace), and its
// own private "disk": a tmpfs of Options.DiskBytes mounted on /tmp and /root
// (root's home) in its own mount namespace. Everything else of the file
// system (/usr, /etc, ...) is the machine's. Every process that sshd starts
// (sessions, testers) lives in those namespaces. Every host shares the
// machine's wall clock.
//
//	lab := netlab.New(t, netlab.Options{Hosts: 3, Prefix: "lab"})
//	h := lab.Hosts[0]
//	out, err := exec.Command("ssh", lab.SSHArgs(h, "hostname")...).Output() // h.Name
//	h.Partition(true)           // iptables DROP of everything between h and the rest
//	h.SetDelay(30*time.Millisecond) // one-way, each direction (user space NFQUEUE)
//	h.SetRate(10_000_000)       // 10 Mbit/s each direction (tc tbf)
//	h.FillDisk()                // writes to /tmp and /root fail with ENOSPC
//	h.Stop()                    // its sshd stops: connections are refused
//	procs, _ := h.Processes()   // what runs on h, except its sshd daemon
//	files, _ := h.Files("/tmp") // what is left under /tmp on h
//	out, err = h.Run(ctx, "ls", "/tmp") // a command inside h, without ssh
//	os.ReadFile(h.Path("/root/x"))     // h's /root/x, read from the test
//
// Stop makes a host refuse connections (its sshd is gone: "Connection
// refused" at once); Partition(true) makes it silent (connects time out,
// open connections stall). Hosts share the machine's PID space, so
// Proc.PID can be signalled from the test. FillDisk writes
// /tmp/.netlab-fill, which Files lists until FreeDisk.
//
// The controller side is the root namespace: it reaches every host at
// Host.Addr and the hosts reach it at Lab.BridgeAddr. Lab.KeyFile logs in as
// root on every host; Lab.KnownHosts lists every host's key (ssh with
// StrictHostKeyChecking=yes accepts them, any other host key is refused).
//
// New registers Close with t.Cleanup, so everything (processes in the hosts,
// namespaces, bridge, iptables rules, tc qdiscs, state files) is removed even
// when the test fails; Close is idempotent. New also removes what a crashed
// earlier test left behind with the same Prefix, but only labs whose owning
// process is gone: concurrent tests with their own labs are never touched.
//
// Names: a lab is Prefix plus 4 random hex digits (e.g. "lab3f9a"), its bridge
// "<lab>br", host i's namespace "<lab>-h<i>" (hostname "<lab>-h<i>" too), its
// root-side veth "<lab>v<i>", its in-namespace interface eth0. State (keys,
// sshd configs and logs) lives in /run/netlab/<lab>/.
//
// Delay: the kernel has no netem, so SetDelay holds packets in user space:
// NFQUEUE rules on INPUT (in the host's namespace for packets to it, in the
// root namespace's chain "NETLAB-<lab>" for packets from the hosts) and
// goroutines of the test process that give the verdicts when the delay has
// passed. A packet from host A to host B waits delay(A)+delay(B). Only IPv4
// is delayed; a packet goes through without delay if the test process dies
// (--queue-bypass).
//
// Limits: if the test process is killed (SIGKILL, or go test's -timeout
// panic, which skips t.Cleanup), the lab stays until the next New with the
// same Prefix removes it. IPv4 only.
package netlab
