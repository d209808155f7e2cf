package acceptance

// Node is what discovery found on the host.
type Node struct {
	Hostname string `json:"hostname"`
	Driver   string `json:"driver"` // NVIDIA driver version
	GPUs     []GPU  `json:"gpus"`
	// PeerAccess[i][j] says whether GPUs[i] can access GPUs[j]'s memory (CUDA peer
	// access); i and j are positions in GPUs, and [i][i] is unused.
	PeerAccess [][]bool `json:"peer_access"`
	// NVLinks[i][j] is the number of NVLinks between GPUs[i] and GPUs[j], direct or
	// through NVSwitch; nil when NVML is unavailable.
	NVLinks [][]int `json:"nvlinks"`
	// NVMLError says why NVLinks is nil, if it is.
	NVMLError string `json:"nvml_error,omitempty"`
	// Ranks lists the job's ranks on this host, when the job spans several hosts.
	Ranks []int `json:"ranks,omitempty"`
}

// GPU is one GPU of the node.
type GPU struct {
	Index int `json:"index"` // the node's index of the GPU (NVML's, else CUDA's); names it in checks ("GPU 3")
	// Rank is the rank using the GPU, or -1 when no rank does. Peer-access and NVLink
	// checks cover only GPUs with Rank >= 0; entries with the bus id of an earlier one
	// (a GPU that several ranks share) are left out of them.
	Rank        int    `json:"rank"`
	Name        string `json:"name"` // as CUDA or NVML report it, e.g. "NVIDIA H200"
	BusID       string `json:"bus_id"`
	UUID        string `json:"uuid"`
	MemoryBytes uint64 `json:"memory_bytes"`
}

// PairFigures are the point-to-point figures measured between ranks A and B.
type PairFigures struct {
	A int `json:"a"` // rank
	B int `json:"b"` // rank
	// One-way signal latency over memory and port channels, µs.
	MemorySignalUs float64 `json:"memory_signal_us"`
	PortSignalUs   float64 `json:"port_signal_us"`
	// One-way put bandwidth at Spec.PutBytes over memory and port channels, GB/s.
	MemoryPutGBs float64 `json:"memory_put_gbs"`
	PortPutGBs   float64 `json:"port_put_gbs"`
	// Wrong counts the bytes that arrived wrong in any of the pair's checks.
	Wrong int64 `json:"wrong"`
	// Err is non-empty when measuring the pair failed; the figures are 0 then.
	Err string `json:"err,omitempty"`
	// Transport is how the pair's port channels connect ("cudaipc", "ethernet", "ib").
	Transport string `json:"transport,omitempty"`
	// AcrossHosts says A and B are on different hosts: only port channels connect them
	// (no memory-channel figures), and the network limits apply.
	AcrossHosts bool `json:"across_hosts,omitempty"`
}

// CollectiveFigure is one measured collective at one size.
type CollectiveFigure struct {
	Collective string  `json:"collective"` // "allreduce" or "allgather"
	Size       int64   `json:"size"`       // bytes
	Algorithm  string  `json:"algorithm"`
	TimeUs     float64 `json:"time_us"`
	BusBw      float64 `json:"bus_bw"` // GB/s
	Wrong      int64   `json:"wrong"`  // bytes that arrived wrong
	Err        string  `json:"err,omitempty"`
	// Host is the host whose ranks ran it on their own, when the job spans several hosts
	// ("" when it ran on every rank).
	Host string `json:"host,omitempty"`
	// AcrossHosts says it ran on every rank of a job that spans several hosts.
	AcrossHosts bool `json:"across_hosts,omitempty"`
	// Skip, when set, says why it was not run: no algorithm of the collective runs on the
	// job's layout. Its checks are reported as SKIP.
	Skip string `json:"skip,omitempty"`
}

// CopyFigures are a one-rank job's copies, each of Bytes, through the copy engines:
// pinned host memory to the GPU, the GPU to pinned host memory, and GPU memory to GPU
// memory, GB/s (bytes copied a second).
type CopyFigures struct {
	Bytes           int64   `json:"bytes"`
	HostToDeviceGBs float64 `json:"host_to_device_gbs"`
	DeviceToHostGBs float64 `json:"device_to_host_gbs"`
	DeviceCopyGBs   float64 `json:"device_copy_gbs"`
	// Wrong counts the bytes that came back wrong after the three copies.
	Wrong int64  `json:"wrong"`
	Err   string `json:"err,omitempty"`
}

// Figures is everything the GPU side measured for one acceptance run.
type Figures struct {
	Node Node `json:"node"` // the first host's, when there are several
	// Hosts is every host's node, in order of their lowest rank, when the job spans
	// several hosts (nil on one host).
	Hosts       []Node             `json:"hosts,omitempty"`
	Ranks       int                `json:"ranks"`
	Pairs       []PairFigures      `json:"pairs"`
	Collectives []CollectiveFigure `json:"collectives"`
	// Links are the network links of the ranks of a job on several hosts (one per rank and
	// transport used between hosts).
	Links []Link `json:"links,omitempty"`
	// Copies are a one-rank job's copy figures (nil otherwise).
	Copies *CopyFigures `json:"copies,omitempty"`
}

// Nodes returns the nodes to check: every host's, or the one node.
func (f Figures) Nodes() []Node {
	if len(f.Hosts) > 0 {
		return f.Hosts
	}
	return []Node{f.Node}
}
