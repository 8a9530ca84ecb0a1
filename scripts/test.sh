#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need when it
# is missing (Debian, root), then checks formatting, vet, staticcheck, the
# unit tests with the race detector, and the end-to-end tests that start the
# real binary. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION=v0.8.2

need_apt=()
command -v python3 >/dev/null || need_apt+=(python3)
command -v pip3 >/dev/null || command -v pip >/dev/null || need_apt+=(python3-pip)
command -v pgrep >/dev/null || need_apt+=(procps)
command -v curl >/dev/null || need_apt+=(curl) # a command monitor in e2e
[ -x /usr/bin/chromium ] || need_apt+=(chromium) # opens report.html in e2e
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server) # test/netlab hosts
command -v ssh >/dev/null || need_apt+=(openssh-client) # test/netlab: ssh, ssh-keygen
command -v iptables >/dev/null || need_apt+=(iptables) # test/netlab partitions and delays
command -v slurmctld >/dev/null || need_apt+=(slurmctld slurmd slurm-client munge) # test/slurmlab: a local Slurm cluster
[ -x /usr/sbin/nginx ] || need_apt+=(nginx) # test/peers: the private nginx the peers load
[ -x /usr/sbin/fcgiwrap ] || need_apt+=(fcgiwrap) # e2e TestCaseCGI: examples/cases/cgi, nginx + fcgiwrap
command -v jq >/dev/null || need_apt+=(jq) # examples/cases/*/run.sh read summary.json with jq
command -v wrk >/dev/null || need_apt+=(wrk) # test/peers: the wrk runner against it
command -v iperf3 >/dev/null || need_apt+=(iperf3) # e2e: netprobe's bandwidth against iperf3's on tbf-capped links
[ -x /usr/sbin/vsftpd ] || need_apt+=(vsftpd) # e2e: examples/cases/ftp, the server it loads
command -v javac >/dev/null || need_apt+=(openjdk-17-jdk-headless) # internal/client: the Java example client
command -v promtool >/dev/null || need_apt+=(prometheus) # internal/directory: promtool checks the /metrics exposition
command -v prometheus-node-exporter >/dev/null || need_apt+=(prometheus-node-exporter) # e2e: a run's monitor scrapes a real node_exporter
command -v unbound-control >/dev/null || need_apt+=(unbound) # e2e TestCaseDNS: examples/cases/dns, the DNS server it loads
{ [ -x /usr/sbin/slapd ] && command -v ldapsearch >/dev/null; } || { need_apt+=(slapd ldap-utils); export DEBIAN_FRONTEND=noninteractive; } # e2e: examples/cases/ldap (a private slapd; slapd's debconf asks nothing)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]}"
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "== installing duckdb for python (an independent Parquet reader for the tests)"
  python3 -m pip install -q duckdb || python3 -m pip install -q --break-system-packages duckdb
fi
GOBIN_DIR="$(go env GOPATH)/bin"
if [ ! -x "$GOBIN_DIR/staticcheck" ]; then
  echo "== installing staticcheck $STATICCHECK_VERSION"
  go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
echo "== staticcheck"
"$GOBIN_DIR/staticcheck" ./...
echo "== deploy/kubernetes: every manifest decoded strictly against the Kubernetes API's types (a module of its own)"
(cd deploy/kubernetes/check && go vet ./... && go test -count=1 ./...)
echo "== unit tests (race detector)"
go test -race -count=1 $(go list ./... | grep -v /e2e)
echo "== end-to-end tests (real binary, real processes, one at a time: some measure)"
log=$(mktemp /tmp/diperf-e2e.XXXXXX.log)
set +e
go test -count=1 -p 1 -timeout 30m -v ./e2e/... >"$log" 2>&1
status=$?
set -e
grep -E '^\s*(--- |PASS|FAIL|ok|panic)|_test.go:[0-9]+:' "$log"
if [ "$status" -ne 0 ]; then
  echo "== end-to-end tests failed; the last 80 lines of $log:"; tail -n 80 "$log"
  exit "$status"
fi
