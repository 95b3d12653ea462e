// Package conformance checks herd's library presets against the libraries.
package conformance
