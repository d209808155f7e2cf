// Package algo is the toolkit the algorithms of every collective share: Base (the
// environment and the LaunchState in device memory, with helpers that make memory and port
// channels, scratch buffers and grids), typed kernel tables (LoadTyped), the packet scratch
// of the LL16 algorithms, the scratch and channels of the port-channel algorithms
// (PortScatter, PortDirect, PortStaged), the host-resident scratch of the host algorithms
// (HostScatter) and alltoallv's pattern. It holds no algorithm and no kernel of its own.
package algo
