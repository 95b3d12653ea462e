package reproduce

// CollapseExperiment is one rerun of a published retry storm: its name
// (herd reproduce NAME), its source and what it plays, said briefly and in
// full for its help.
type CollapseExperiment struct{ Name, Source, Short, Long string }

// CollapseExperiments are the retry storms played on the service server.
var CollapseExperiments = []CollapseExperiment{
	{"brooker-collapse", BrookerCollapseSource,
		"Brooker's simple_collapse_sim: a load spike and a ramp, without backoff, with his jittered backoff, without retries",
		`brooker-collapse reruns Marc Brooker's simple_collapse_sim on the service
server: every request starts at once and takes 1 s + 0.01 s per request in
service, fixed at its start; the network takes Exp(0.1 s) each way; clients
time out 3 s after each send and make 3 attempts, at once (no-backoff),
after his jittered delays U(0, 20 s) then U(0, 40 s) (backoff), or only one
(no-retry). The spike is Poisson 40/s rising to 80/s over [20 s, 25 s); the
ramp 80 − 1.6·|t − 25| per second; 80 s in all. A run has collapsed when its
goodput over [60 s, 80 s) is under 20/s, half the base load (for the ramp:
over [50 s, 70 s), under half of that window's load). The ramp's
amplification over [50 s, 70 s) is set beside the values his script gives.`},
	{"gc-collapse", GCCollapseSource,
		"happy-simulator's GC collapse: one pause of 0.45, 0.5 or 1 s, even and Poisson arrivals, 3 retries and none",
		`gc-collapse reruns happy-simulator's gc_caused_collapse example on the
service server: new requests 1/7 s apart (even) or Poisson at 7/s for 60 s
and 10 s of drain, one FIFO worker, constant 100 ms service, a 500 ms
timeout from the send, 3 retries 50 ms after each timeout (or none); the
server serves abandoned requests and an abandoned attempt's answer serves
its request while the client waits on a later attempt; no service starts
during one pause at 30 s. A run has recovered at a 1 s bin's end after the
pause, before 60 s, when nothing waits and no attempt timed out in it.`},
	{"descartes-storm", DesCartesSource,
		"DesCartes' metastable retry storm (M/M/1, λ 9.3, μ 10, room 100, 4 s timeout, 3 immediate retries), with and without its spike",
		`descartes-storm reruns DesCartes' metastable_retry_storm as its description
gives it: Poisson 9.3/s, one worker with exponential service of mean 0.1 s,
a waiting room of 100, a 4 s timeout from the send, 3 immediate retries, a
send that finds the room full dropped for good, a 30/s spike over
[120 s, 125 s) (or none), 400 s in all. A run has recovered when within 60 s
of the spike's end a 1 s bin ends with at most 20 requests at the server and
no timeout in it.`},
}
