package timeserver

// authRequest returns a request carrying t1 authenticated with k.
func authRequest(k Key, t1 int64) []byte {
	p := AppendRequest(nil, t1)
	newClientAuth(&k).seal(p)
	return p
}
