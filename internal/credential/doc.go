// Package credential holds what proves who is who in a run
// (docs/design/017-trust-model.md): the testers' token — the shared secret
// they prove they hold, the controller's public key, the runs it admits
// and until when — and the controller's private key, which never leaves
// the controller's host. A token admits testers; only the key commands
// them.
package credential
