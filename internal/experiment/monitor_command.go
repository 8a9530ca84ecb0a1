package experiment

// monitorCommand checks a command endpoint: a command to run and what to
// read from its output.
func (v *validator) monitorCommand(key string, m MonitorEndpoint) {
	if m.Command == nil || len(m.Command.Argv) == 0 {
		v.item(key, key+".command.argv", "is required for format command: the command to run, e.g. [sdiag]")
	}
}
