package directory

import (
	"net/url"
	"strconv"
	"time"
)

// ParseQuery reads a Query from URL parameters: src, dst, kind, since and
// until (RFC 3339), latest (true/false), limit and cursor (checked when
// the page is read).
func ParseQuery(v url.Values) (Query, error) {
	q := Query{Src: v.Get("src"), Dst: v.Get("dst"), Kind: v.Get("kind"), Cursor: v.Get("cursor")}
	for _, f := range []struct{ name, val string }{{"src", q.Src}, {"dst", q.Dst}} {
		if f.val != "" {
			if err := checkToken(f.name, f.val, MaxName); err != nil {
				return q, err
			}
		}
	}
	if q.Kind != "" && q.Kind != KindBandwidth && q.Kind != KindLatency {
		return q, fieldErr("kind", "is %q; want %q or %q", clip(q.Kind), KindBandwidth, KindLatency)
	}
	var err error
	if q.Since, err = parseTime("since", v.Get("since")); err != nil {
		return q, err
	}
	if q.Until, err = parseTime("until", v.Get("until")); err != nil {
		return q, err
	}
	if s := v.Get("latest"); s != "" {
		if q.Latest, err = strconv.ParseBool(s); err != nil {
			return q, fieldErr("latest", "is %q; want true or false", clip(s))
		}
	}
	if s := v.Get("limit"); s != "" {
		if q.Limit, err = strconv.Atoi(s); err != nil || q.Limit < 1 || q.Limit > MaxLimit {
			return q, fieldErr("limit", "is %q; want a whole number from 1 to %d", clip(s), MaxLimit)
		}
	}
	return q, nil
}

func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, fieldErr(field, "is %q; want an RFC 3339 time", clip(s))
	}
	return t, checkQueryTime(field, t)
}

// Values is the inverse of ParseQuery, for the client.
func (q Query) Values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"src": q.Src, "dst": q.Dst, "kind": q.Kind} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.Format(time.RFC3339Nano))
	}
	if q.Latest {
		v.Set("latest", "true")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	return v
}
