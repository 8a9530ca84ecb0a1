#!/usr/bin/env bash
# fetch.sh URL BYTES: one call of the ftp case. Downloads URL with curl
# to /dev/null, reports the bytes it received as the call's bytes (fd 3,
# docs/clients.md "extras") and succeeds only when they are BYTES, the
# file's size. A connection vsftpd refuses (max_clients reached: "421
# There are too many connected users") is a failed call.
url=${1:?usage: fetch.sh URL BYTES}
want=${2:?usage: fetch.sh URL BYTES}
out=$(curl --silent --max-time 60 --output /dev/null --write-out '%{size_download} %{response_code}' "$url")
rc=$?
read -r got code <<<"$out"
[[ $got =~ ^[0-9]+$ ]] || got=0
if [[ -e /dev/fd/3 ]]; then echo "bytes=$got" >&3; fi
if [[ $code == 421 ]]; then
	echo "refused: 421 too many connected users (max_clients)" >&2
	exit 1
fi
if ((rc != 0)); then
	echo "curl exit $rc after $got bytes (last reply $code)" >&2
	exit 1
fi
if ((got != want)); then
	echo "got $got bytes, want $want" >&2
	exit 1
fi
