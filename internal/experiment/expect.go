package experiment

import (
	"encoding/hex"
	"fmt"
)

// MaxSocketPayload bounds a tcp or udp client's payload and expected
// bytes, as the testers do (protocol.MaxPayload).
const MaxSocketPayload = 256 << 10

// Prefix is the bytes a good reply starts with: BytesHex decoded, else
// Bytes (nil: none). BytesHex that is not hex gives nil (validation
// refuses it).
func (e Expect) Prefix() []byte {
	if e.BytesHex != "" {
		b, err := hex.DecodeString(e.BytesHex)
		if err != nil {
			return nil
		}
		return b
	}
	if e.Bytes == "" {
		return nil
	}
	return []byte(e.Bytes)
}

// socketBytes checks a tcp or udp client's payload and expected bytes:
// send or send_hex, bytes or bytes_hex, hex where it says so, each within
// MaxSocketPayload.
func (v *validator) socketBytes(key string, s *SocketClient) {
	v.textOrHex(key, "send", s.Send, s.SendHex)
	v.textOrHex(key+".expect", "bytes", s.Expect.Bytes, s.Expect.BytesHex)
}

// textOrHex checks a pair of settings under key, the same bytes given as
// text (name) or in hex (name_hex): not both, hex that decodes, in bounds.
func (v *validator) textOrHex(key, name, text, hx string) {
	textKey, hexKey := key+"."+name, key+"."+name+"_hex"
	if text != "" && hx != "" {
		v.add(hexKey, fmt.Sprintf("give %s or %s_hex, not both", name, name))
	}
	b, err := hex.DecodeString(hx)
	if err != nil {
		v.add(hexKey, fmt.Sprintf("not hex: %v", err))
	}
	for _, c := range []struct {
		key string
		n   int
	}{{textKey, len(text)}, {hexKey, len(b)}} {
		if c.n > MaxSocketPayload {
			v.add(c.key, fmt.Sprintf("%d bytes, more than the %d a tester takes", c.n, MaxSocketPayload))
		}
	}
}
