# knee.jq: the ldap case's knee check, run by check.sh on summary.json
# with $cap (calibrated capacity), $lo, $hi and $pcap (the least, largest
# and median capacity q/c of the scrape intervals while saturated),
# $share (the share of one CPU slapd used then), $q (its quota, %), $ct
# and $rt (the tolerances, %). The rule (README.md, "The knee against the
# capacity"):
#   - slapd held at its quota (share >= 90% of q): diperf must find the
#     service saturated, at a throughput within the capacity's range while
#     saturated (less $rt% of $lo, plus $rt% of $hi); how far it is from
#     the calibrated $cap is said, not held ($ct is the spread measured);
#   - slapd not held at its quota (the clients, starved on a busy machine,
#     could not keep it busy): the knee cannot show; diperf's figure must
#     still not exceed $hi by more than $rt%.
def pct(c): if c > 0 then 100 * (. - c) / c else 1e9 end;
def r1: . * 10 | round / 10;
(($share * 100) >= 0.9 * $q) as $held
| .saturation
| (if .saturated then .throughput else (.capacity_at_least // .throughput) end) as $x
| ($x | pct($cap)) as $dc
| ($x <= $hi * (1 + $rt / 100)) as $below
| ($x >= $lo * (1 - $rt / 100)) as $above
| (if $held then .saturated and $below and $above else $below end) as $ok
| "knee \(if $ok then "ok" else "FAIL" end): "
  + (if .saturated then "saturated at load \(.load | r1), throughput \($x) calls/s"
     else "not saturated (\(.evidence // .reason // "")), \($x) calls/s at the highest loads" end)
  + ": \($dc | r1)% of the calibrated capacity \($cap) (a prediction: within ±\($ct)% in the runs measured); the capacity while saturated "
  + "\($lo) to \($hi), median \($pcap) (\($x | pct($pcap) | r1)%; allowed \($rt)% outside the range)"
  + (if $held then "" else "; slapd ran at \($share * 100 | r1)% of one CPU, under 90% of its quota \($q)%: "
     + "the clients could not keep it busy, the knee cannot show (allowed: no more than the capacity)" end)
