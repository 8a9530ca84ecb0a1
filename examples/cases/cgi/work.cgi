#!/bin/bash
# The CGI script of the cgi case: one call = one request of a known service
# time. nginx hands it, as FastCGI parameters that fcgiwrap turns into its
# environment, CGI_SERVICE_TIME (s), CGI_BODY_BYTES and CGI_IDLE_FIFO (a
# FIFO nobody writes to). It waits CGI_SERVICE_TIME on that FIFO (bash's
# read -t: no process is started, so the time is the service time and
# little more, even on a busy machine), then answers 200 with
# CGI_BODY_BYTES bytes of "x". Each of fcgiwrap's N workers runs one
# script at a time: N workers of service time S serve at most N/S calls/s.
s=$CGI_SERVICE_TIME n=$CGI_BODY_BYTES
if ! [[ $s =~ ^[0-9]+(\.[0-9]+)?$ && $n =~ ^[0-9]{1,6}$ && -p $CGI_IDLE_FIFO ]]; then
	printf 'Status: 500\r\nContent-Type: text/plain\r\n\r\nbad CGI_SERVICE_TIME, CGI_BODY_BYTES or CGI_IDLE_FIFO\n'
	exit 0
fi
read -r -t "$s" <>"$CGI_IDLE_FIFO"
printf -v body '%*s' "$n" ''
# X-CGI-Worker is the fcgiwrap worker that ran it (nginx logs it and does
# not pass it on): the access log shows how many workers served.
printf 'Content-Type: text/plain\r\nContent-Length: %d\r\nX-CGI-Worker: %d\r\n\r\n%s' "$n" "$PPID" "${body// /x}"
