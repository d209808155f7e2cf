// Package scatter is the scatter collective: every rank receives its slot of the root's
// buffer (-r). scatter.go is its record (byte counts, bus factor, expected values); each
// scatter_<algorithm>.go registers one algorithm: read launches broadcast's read kernel
// (collectives/broadcast) on the rank's slot, so this folder has no .cu file of its own;
// portput comes from the port-staged family (collectives/family/portstaged), registered by
// scatter_portput.go. With one rank every collective runs the registry's local copy.
package scatter
