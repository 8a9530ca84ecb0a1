// Package pipeline is what becomes of a run directory once its run is
// over: load its raw data (rundir) and place every call on the global
// timeline, analyze it in one streaming pass (analyze), write the derived
// files (quanta.csv, clients.csv, summary.json), fit the models (model.json)
// and draw the report (report.html and its graphs). The controller runs it
// at the end of a run; `diperf analyze`, `report`, `predict` and `compare`
// run it again on an old run, at another quantum or clock mode, on another
// machine.
package pipeline
