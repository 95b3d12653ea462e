// Package reproduce reruns published experiments beside their printed
// numbers: the seed article's table (ReproduceSeed; Agrees compares each
// number with the printed one), the AWS Architecture Blog's OCC simulation
// (ReproduceAWS, with its figures' data AWSCallsVersusClients and
// AWSTimeVersusClients), and the experiments of Brooker's retry_sim on the
// flaky server (ReproduceBrooker) beside the values his simulator recorded
// (data/brooker_retry_sim.json, with their provenance). The collapse
// experiments (Collapse: Brooker's simple_collapse_sim, happy-simulator's
// GC collapse, DesCartes' retry storm) play on the service server, each
// row judged by a reading of its source's claim (PlayCollapse).
package reproduce
