package main

import "github.com/spf13/pflag"

// registerQueueFlags adds the queue server's scenario flags.
func registerQueueFlags(fs *pflag.FlagSet) {
	fs.Int("queue-limit", 0, "--server queue: the most requests the queue holds; a send over it is rejected at once (0: unbounded)")
	fs.Int("timeout", 0, "--server queue: ticks of response time a client waits before it abandons the attempt and retries, while the server still serves it (0: never)")
}
