package testbed

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/diperf/diperf/internal/errs"
)

// sshAuth returns how the testbed proves who it is: the identity file
// when given, else the keys of the SSH agent ($SSH_AUTH_SOCK), else the
// default keys ~/.ssh/id_ed25519, id_ecdsa and id_rsa that exist.
// closeAgent closes the agent connection (a no-op without one).
func sshAuth(identityFile string) (auth []ssh.AuthMethod, closeAgent func(), err error) {
	closeAgent = func() {}
	if identityFile != "" {
		s, err := loadKey(identityFile)
		if err != nil {
			return nil, closeAgent, errs.Usage(fmt.Errorf("testbed.identity_file: %w", err),
				"give an unencrypted private key, or leave identity_file out to use the ssh agent")
		}
		return []ssh.AuthMethod{ssh.PublicKeys(s)}, closeAgent, nil
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, err := net.Dial("unix", sock); err == nil {
			ag := agent.NewClient(c)
			if ss, err := ag.Signers(); err == nil && len(ss) > 0 {
				return []ssh.AuthMethod{ssh.PublicKeysCallback(ag.Signers)}, func() { c.Close() }, nil
			}
			c.Close()
		}
	}
	home, _ := os.UserHomeDir()
	var signers []ssh.Signer
	for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		if s, err := loadKey(filepath.Join(home, ".ssh", n)); err == nil {
			signers = append(signers, s)
		}
	}
	if len(signers) == 0 {
		return nil, closeAgent, errs.Usagef("the ssh testbed has no key to log in with: no testbed.identity_file, no ssh agent with keys ($SSH_AUTH_SOCK), and no unencrypted ~/.ssh/id_ed25519, id_ecdsa or id_rsa")
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, closeAgent, nil
}

// homePath expands a leading "~/" to the home directory of the user
// running diperf, as a shell would for the same path in ssh's own config
// (the experiment file is read by no shell). Any other path is as given.
func homePath(p string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p // the open then fails naming the path as written
	}
	return filepath.Join(home, rest)
}

// loadKey reads an unencrypted private key.
func loadKey(path string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ssh.ParsePrivateKey(b)
	var pp *ssh.PassphraseMissingError
	if errors.As(err, &pp) {
		return nil, fmt.Errorf("%s is protected by a passphrase: load it into the ssh agent (ssh-add) instead", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// hostKeys checks host keys against a known_hosts file. With trust set,
// an unknown host's key is added to the file; a key that differs from
// the file's is always refused.
type hostKeys struct {
	file  string
	trust bool

	mu    sync.Mutex
	check ssh.HostKeyCallback
	added map[string]ssh.PublicKey // trusted during this run, by address
}

// errHostKey marks a host refused for its key: the user's setup.
var errHostKey = errors.New("host key")

// newHostKeys opens the known_hosts file (path "" = ~/.ssh/known_hosts).
// A missing file is created (empty, 0600) when trust is set.
func newHostKeys(path string, trust bool) (*hostKeys, error) {
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("ssh testbed: finding ~/.ssh/known_hosts: %w", err)
		}
		path = filepath.Join(home, ".ssh", "known_hosts")
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if !trust {
			return &hostKeys{file: path}, nil // every host unknown: each says how to fix it
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("ssh testbed: known_hosts: %w", err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("ssh testbed: known_hosts: %w", err)
		}
		f.Close()
	}
	cb, err := knownhosts.New(path)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("testbed.known_hosts %s: %w", path, err), "give a readable known_hosts file")
	}
	return &hostKeys{file: path, trust: trust, check: cb, added: map[string]ssh.PublicKey{}}, nil
}

// callback checks the key host at remote offers; name is the host as
// listed, for the error.
func (k *hostKeys) callback(name string) ssh.HostKeyCallback {
	return func(host string, remote net.Addr, key ssh.PublicKey) error {
		if k.check == nil {
			return k.unknown(name, host)
		}
		err := k.check(host, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return fmt.Errorf("%w: %s offers a key that differs from the one %s holds for it (line %d): refused, the host may be impersonated; "+
				"if it was reinstalled, remove its old key (ssh-keygen -R %q -f %s)", errHostKey, name, k.file, ke.Want[0].Line, knownhosts.Normalize(host), k.file)
		case errors.As(err, &ke):
			if !k.trust {
				return k.unknown(name, host)
			}
			return k.add(host, key)
		}
		return fmt.Errorf("%w: checking %s against %s: %v", errHostKey, name, k.file, err)
	}
}

func (k *hostKeys) unknown(name, host string) error {
	h, p, _ := net.SplitHostPort(host)
	return fmt.Errorf("%w: %s is not in %s: add its key (ssh-keyscan -p %s %s >> %s) or set testbed.trust_new_hosts: true",
		errHostKey, name, k.file, p, h, k.file)
}

// add appends host's key to the file, once per address and run.
func (k *hostKeys) add(host string, key ssh.PublicKey) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	addr := knownhosts.Normalize(host)
	if prev, ok := k.added[addr]; ok {
		if string(prev.Marshal()) != string(key.Marshal()) {
			return fmt.Errorf("%w: %s offered two different keys during this run: refused", errHostKey, host)
		}
		return nil
	}
	f, err := os.OpenFile(k.file, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("trusting %s: %w", host, err)
	}
	_, err = fmt.Fprintln(f, knownhosts.Line([]string{addr}, key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("trusting %s: writing %s: %w", host, k.file, err)
	}
	k.added[addr] = key
	return nil
}
