package model

// PolicyFields are the fields a policy of a comparison may set.
var PolicyFields = []string{"policy", "base", "cap", "fixed-delay", "retries", "max-elapsed"}

// DelayFields are the fields a policy's law of delays depends on: its own,
// its tick and poly's exponent. The others (clients, server, rounding, …)
// do not change it.
var DelayFields = append(append([]string(nil), PolicyFields...), "tick", "exponent")
