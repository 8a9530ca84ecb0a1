package experiment

// monitorLog checks a log endpoint: a file to follow and what to read
// from its lines.
func (v *validator) monitorLog(key string, m MonitorEndpoint) {
	if m.Log == nil || m.Log.Path == "" {
		v.item(key, key+".log.path", "is required for format log: the log file to follow")
	}
}
