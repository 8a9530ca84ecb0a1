package slurmlab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// confTemplate is the cluster's slurm.conf; %[1]s is its directory, %[2]d
// slurmctld's port. Node lines follow.
const confTemplate = `ClusterName=slurmlab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%[2]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/munge/munge.socket
CredType=cred/munge
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool/%%n
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd-%%n.pid
SlurmctldLogFile=%[1]s/log/slurmctld.log
SlurmdLogFile=%[1]s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU,CR_LLN
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
InactiveLimit=0
`

// writeConf writes slurm.conf: the nodes n1..nN, each a slurmd on its own
// free loopback port claiming o.CPUs CPUs, in the default partition (least
// loaded node first, so tasks spread over the nodes), and a second
// partition that is down.
func (c *Cluster) writeConf(o Options) error {
	ports, err := freePorts(o.Nodes + 1)
	if err != nil {
		return fmt.Errorf("finding free ports: %w", err)
	}
	for _, d := range []string{"state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, confTemplate, c.Dir, ports[0])
	for i := range o.Nodes {
		n := fmt.Sprintf("n%d", i+1)
		c.Nodes = append(c.Nodes, n)
		fmt.Fprintf(&b, "NodeName=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d State=UNKNOWN\n", n, ports[i+1], o.CPUs)
	}
	nodes := strings.Join(c.Nodes, ",")
	fmt.Fprintf(&b, "PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", c.Partition, nodes)
	fmt.Fprintf(&b, "PartitionName=%s Nodes=%s MaxTime=INFINITE State=DOWN\n", c.Closed, nodes)
	return os.WriteFile(c.Conf, []byte(b.String()), 0o644)
}
