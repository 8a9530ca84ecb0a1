package directory

import "testing"

func FuzzDecodeProbeRequest(f *testing.F) {
	seeds(f, `{"src":"a","dst":"b","kind":"bandwidth"}`, `{"src":"a","dst":"a","kind":"latency"}`, `{"src":"a","dst":"b","kind":"jitter"}`,
		`{"src":"a\u0000","dst":"b","kind":"latency"}`, `{"SRC":"a","dst":"b","kind":"latency"}`, `[]`, `{"src":1}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode[ProbeRequest](t, data) })
}

func FuzzDecodeProbeAnswer(f *testing.F) {
	seeds(f, `{"reason":"over budget, next possible in 40 s"}`, `{"reason":"x\u001b[2J"}`, `{}`, `{"reason":""}`,
		`{"result":{"src":"a","dst":"b","kind":"latency","latency_p50_ms":1,"latency_p90_ms":2,"latency_p99_ms":3,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}}`,
		`{"result":{"src":"a"},"reason":"both"}`, `{"result":null,"reason":"x"}`, `{"result":{"src":"a","extra":1}}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode[ProbeAnswer](t, data) })
}
