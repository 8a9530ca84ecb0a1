#!/usr/bin/env bash
# monitor.sh URL DIR: the ldap case's server view, run by diperf's command
# monitor every interval (and by run.sh around its calibration). It prints
#
#   searches N      searches slapd completed, its own earlier ones taken off
#   cpu_seconds X   CPU time slapd's cgroup used (when run.sh made one)
#   periods N       CPU quota periods elapsed in that cgroup
#   throttled N     periods in which slapd used up its quota and waited
#
# searches: cn=Monitor's monitorOpCompleted of cn=Search counts every search
# slapd finished, this script's own among them. Its search is counted when
# it ends, after it read the counter, so each reading holds every earlier
# reading's search and not its own: the script counts its readings in
# DIR/monitor.count and takes the earlier ones off. A reading whose
# ldapsearch failed still counts (its search may have been served).
#
# DIR/cpu_file names the cgroup file of slapd's CPU time: cpuacct.usage (ns,
# cgroup v1) or cpu.stat (usage_usec, cgroup v2); DIR/cpu_stat its cpu.stat
# (nr_periods, nr_throttled).
set -euo pipefail
url=$1 dir=$2

count=0
[[ -s $dir/monitor.count ]] && count=$(<"$dir/monitor.count")
echo $((count + 1)) >"$dir/monitor.count"

completed=$(ldapsearch -x -o nettimeout=2 -l 2 -H "$url" -b 'cn=Search,cn=Operations,cn=Monitor' -s base -LLL monitorOpCompleted |
	sed -n 's/^monitorOpCompleted: \([0-9][0-9]*\)$/\1/p')
[[ -n $completed ]] || { echo "monitor.sh: no monitorOpCompleted from $url" >&2; exit 1; }
echo "searches $((completed - count))"

if [[ -s $dir/cpu_file ]]; then
	f=$(<"$dir/cpu_file")
	case $f in
	*/cpuacct.usage) awk '{printf "cpu_seconds %.6f\n", $1 / 1e9}' "$f" ;;
	*/cpu.stat) awk '$1 == "usage_usec" {printf "cpu_seconds %.6f\n", $2 / 1e6}' "$f" ;;
	esac
	awk '$1 == "nr_periods" {print "periods", $2} $1 == "nr_throttled" {print "throttled", $2}' "$(<"$dir/cpu_stat")"
fi
