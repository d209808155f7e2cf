// Package ibverbs implements rdma.Verbs with libibverbs (rdma-core), loaded with dlopen
// when first used: the program neither links it nor needs it to start, and a machine
// without it, or without an HCA, gets an error from Open instead.
//
// It builds against rdma-core's headers (Debian: libibverbs-dev). Not yet run on an HCA:
// no machine this project can reach has one (docs/performance.md).
package ibverbs

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

// Entry points looked up in the library. ibv_post_send and ibv_poll_cq are inline in the
// header (they call through the context's ops table), so they need no lookup.
static void* mbLib;
static struct ibv_device** (*mbGetDeviceList)(int*);
static void (*mbFreeDeviceList)(struct ibv_device**);
static const char* (*mbGetDeviceName)(struct ibv_device*);
static struct ibv_context* (*mbOpenDevice)(struct ibv_device*);
static int (*mbCloseDevice)(struct ibv_context*);
static int (*mbQueryDevice)(struct ibv_context*, struct ibv_device_attr*);
static int (*mbQueryPort)(struct ibv_context*, uint8_t, struct ibv_port_attr*);
static int (*mbQueryGid)(struct ibv_context*, uint8_t, int, union ibv_gid*);
static struct ibv_pd* (*mbAllocPd)(struct ibv_context*);
static int (*mbDeallocPd)(struct ibv_pd*);
static struct ibv_mr* (*mbRegMr)(struct ibv_pd*, void*, size_t, int);
static struct ibv_mr* (*mbRegDmabufMr)(struct ibv_pd*, uint64_t, size_t, uint64_t, int, int);
static int (*mbDeregMr)(struct ibv_mr*);
static struct ibv_cq* (*mbCreateCq)(struct ibv_context*, int, void*, struct ibv_comp_channel*, int);
static int (*mbDestroyCq)(struct ibv_cq*);
static struct ibv_qp* (*mbCreateQp)(struct ibv_pd*, struct ibv_qp_init_attr*);
static int (*mbDestroyQp)(struct ibv_qp*);
static int (*mbModifyQp)(struct ibv_qp*, struct ibv_qp_attr*, int);
static const char* (*mbWcStatusStr)(enum ibv_wc_status);

#define MB_SYM(var, name) do { *(void**)(&var) = dlsym(h, name); if (!var) { *missing = name; dlclose(h); return 2; } } while (0)

// mbLoad opens the library and looks every entry point up: 0 on success, 1 when dlopen
// fails (its message in *err), 2 when a symbol is missing (its name in *missing).
static int mbLoad(const char* path, const char** err, const char** missing) {
	if (mbLib) return 0;
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { *err = dlerror(); return 1; }
	MB_SYM(mbGetDeviceList, "ibv_get_device_list");
	MB_SYM(mbFreeDeviceList, "ibv_free_device_list");
	MB_SYM(mbGetDeviceName, "ibv_get_device_name");
	MB_SYM(mbOpenDevice, "ibv_open_device");
	MB_SYM(mbCloseDevice, "ibv_close_device");
	MB_SYM(mbQueryDevice, "ibv_query_device");
	MB_SYM(mbQueryPort, "ibv_query_port");
	MB_SYM(mbQueryGid, "ibv_query_gid");
	MB_SYM(mbAllocPd, "ibv_alloc_pd");
	MB_SYM(mbDeallocPd, "ibv_dealloc_pd");
	MB_SYM(mbRegMr, "ibv_reg_mr");
	MB_SYM(mbDeregMr, "ibv_dereg_mr");
	MB_SYM(mbCreateCq, "ibv_create_cq");
	MB_SYM(mbDestroyCq, "ibv_destroy_cq");
	MB_SYM(mbCreateQp, "ibv_create_qp");
	MB_SYM(mbDestroyQp, "ibv_destroy_qp");
	MB_SYM(mbModifyQp, "ibv_modify_qp");
	MB_SYM(mbWcStatusStr, "ibv_wc_status_str");
	*(void**)(&mbRegDmabufMr) = dlsym(h, "ibv_reg_dmabuf_mr"); // rdma-core 34+; optional
	mbLib = h;
	return 0;
}

static int mbDeviceCount(struct ibv_device*** list) {
	int n = 0;
	*list = mbGetDeviceList(&n);
	return *list ? n : -1;
}

static struct ibv_device* mbDeviceAt(struct ibv_device** list, int i) { return list[i]; }
static const char* mbDeviceName(struct ibv_device* d) { return mbGetDeviceName(d); }
static void mbFreeDevices(struct ibv_device** list) { mbFreeDeviceList(list); }
static struct ibv_context* mbOpen(struct ibv_device* d) { return mbOpenDevice(d); }
static int mbClose(struct ibv_context* c) { return mbCloseDevice(c); }

// mbPortInfo queries the device and one of its ports.
static int mbPortInfo(struct ibv_context* c, int port, int* ports, int* atomics, int* state, int* mtu, int* lid,
                      int* linkLayer) {
	struct ibv_device_attr da;
	memset(&da, 0, sizeof da);
	int r = mbQueryDevice(c, &da);
	if (r) return r;
	*ports = da.phys_port_cnt;
	*atomics = da.atomic_cap != IBV_ATOMIC_NONE;
	struct ibv_port_attr pa;
	memset(&pa, 0, sizeof pa);
	r = mbQueryPort(c, (uint8_t)port, &pa);
	if (r) return r;
	*state = pa.state;
	*mtu = pa.active_mtu;
	*lid = pa.lid;
	*linkLayer = pa.link_layer;
	return 0;
}

static int mbGid(struct ibv_context* c, int port, int index, void* out) {
	union ibv_gid g;
	int r = mbQueryGid(c, (uint8_t)port, index, &g);
	if (r == 0) memcpy(out, g.raw, 16);
	return r;
}

static struct ibv_pd* mbPd(struct ibv_context* c) { return mbAllocPd(c); }
static int mbFreePd(struct ibv_pd* pd) { return mbDeallocPd(pd); }

static const int mbAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

static struct ibv_mr* mbReg(struct ibv_pd* pd, uint64_t addr, size_t size) {
	return mbRegMr(pd, (void*)(uintptr_t)addr, size, mbAccess);
}

static struct ibv_mr* mbRegDmabuf(struct ibv_pd* pd, uint64_t offset, size_t size, uint64_t iova, int fd) {
	if (!mbRegDmabufMr) return NULL;
	return mbRegDmabufMr(pd, offset, size, iova, fd, mbAccess);
}

static int mbDereg(struct ibv_mr* mr) { return mbDeregMr(mr); }
static uint32_t mbLkey(struct ibv_mr* mr) { return mr->lkey; }
static uint32_t mbRkey(struct ibv_mr* mr) { return mr->rkey; }

static struct ibv_cq* mbCq(struct ibv_context* c, int n) { return mbCreateCq(c, n, NULL, NULL, 0); }
static int mbFreeCq(struct ibv_cq* cq) { return mbDestroyCq(cq); }

static struct ibv_qp* mbQp(struct ibv_pd* pd, struct ibv_cq* cq, int depth) {
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 1;
	a.cap.max_send_wr = depth;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	return mbCreateQp(pd, &a);
}

static int mbFreeQp(struct ibv_qp* qp) { return mbDestroyQp(qp); }
static uint32_t mbQpNum(struct ibv_qp* qp) { return qp->qp_num; }

static int mbQpInit(struct ibv_qp* qp, int port) {
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = (uint8_t)port;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	return mbModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int mbQpRtr(struct ibv_qp* qp, int port, int mtu, uint32_t dqpn, uint32_t rpsn, int dlid, const void* dgid,
                   int global, int gidIndex) {
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = rpsn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = (uint16_t)dlid;
	a.ah_attr.port_num = (uint8_t)port;
	if (global) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)gidIndex;
		a.ah_attr.grh.hop_limit = 255;
	}
	return mbModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int mbQpRts(struct ibv_qp* qp, uint32_t psn) {
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = psn;
	a.max_rd_atomic = 1;
	return mbModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
	                              IBV_QP_MAX_QP_RD_ATOMIC);
}

// mbPost posts one signalled work request: an RDMA write of n bytes, or (atomic) a
// fetch-and-add of add on the remote 8 bytes whose old value lands at laddr.
static int mbPost(struct ibv_qp* qp, uint64_t id, int atomic, uint64_t laddr, uint32_t lkey, uint32_t n,
                  uint64_t raddr, uint32_t rkey, uint64_t add) {
	struct ibv_sge sge = {.addr = laddr, .length = n, .lkey = lkey};
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (atomic) {
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add;
	} else {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

// mbPoll polls up to n completions into ids and statuses.
static int mbPoll(struct ibv_cq* cq, int n, uint64_t* ids, int* statuses) {
	struct ibv_wc wc[32];
	if (n > 32) n = 32;
	int got = ibv_poll_cq(cq, n, wc);
	for (int i = 0; i < got; i++) {
		ids[i] = wc[i].wr_id;
		statuses[i] = wc[i].status;
	}
	return got;
}

static const char* mbStatus(int s) { return mbWcStatusStr((enum ibv_wc_status)s); }

static void* mbAlignedAlloc(size_t n) {
	void* p = NULL;
	if (posix_memalign(&p, 4096, n)) return NULL;
	memset(p, 0, n);
	return p;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// Library is libibverbs, loaded from Path (default "libibverbs.so.1") when first opened.
type Library struct {
	Path string
	// GIDIndex is the GID table index (RoCE), 0 to 255; the GPU worker sets it from
	// MSCCLPP_BENCH_IB_GID_INDEX.
	GIDIndex int
}

var loadMu sync.Mutex

// load opens the library once per process.
func (l Library) load() error {
	path := l.Path
	if path == "" {
		path = "libibverbs.so.1"
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	loadMu.Lock()
	defer loadMu.Unlock()
	var cerr, missing *C.char
	switch C.mbLoad(cpath, &cerr, &missing) {
	case 1:
		return fmt.Errorf("libibverbs is not installed (%s)", C.GoString(cerr))
	case 2:
		return fmt.Errorf("%s lacks %s", path, C.GoString(missing))
	}
	return nil
}

var _ rdma.Verbs = Library{}

// Open implements rdma.Verbs: name ("" = any; the GPU worker passes $MSCCLPP_BENCH_IB_HCA) is a device,
// optionally with ":port"; the first port that is active is used.
func (l Library) Open(name string) (rdma.Device, error) {
	if err := l.load(); err != nil {
		return nil, err
	}
	wantPort := 0
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		p, err := strconv.Atoi(name[i+1:])
		if err != nil || p < 1 || p > 255 {
			return nil, fmt.Errorf("InfiniBand device %q: bad port", name)
		}
		name, wantPort = name[:i], p
	}
	gidIndex := l.GIDIndex
	if gidIndex < 0 || gidIndex > 255 {
		return nil, fmt.Errorf("InfiniBand GID index %d: want 0..255", gidIndex)
	}
	var list **C.struct_ibv_device
	cn, errno := C.mbDeviceCount(&list)
	n := int(cn)
	if n < 0 { // no RDMA support in the kernel, or no device
		return nil, fmt.Errorf("libibverbs found no InfiniBand device (%v)", errno)
	}
	defer C.mbFreeDevices(list)
	if n == 0 {
		return nil, errors.New("libibverbs found no InfiniBand device")
	}
	var tried []string
	for i := 0; i < n; i++ {
		d := C.mbDeviceAt(list, C.int(i))
		dname := C.GoString(C.mbDeviceName(d))
		if name != "" && dname != name {
			continue
		}
		dev, why := openPort(d, dname, wantPort, gidIndex)
		if dev != nil {
			return dev, nil
		}
		tried = append(tried, dname+": "+why)
	}
	if len(tried) == 0 {
		return nil, fmt.Errorf("no InfiniBand device is named %q", name)
	}
	return nil, fmt.Errorf("no usable InfiniBand port (%s)", strings.Join(tried, "; "))
}

const portActive = 4 // IBV_PORT_ACTIVE

// openPort opens d and returns it with its first active port (or wantPort), or why not.
func openPort(d *C.struct_ibv_device, name string, wantPort, gidIndex int) (*device, string) {
	ctx := C.mbOpen(d)
	if ctx == nil {
		return nil, "cannot open it"
	}
	why := "no port"
	for port := 1; port <= 255; port++ {
		if wantPort != 0 && port != wantPort {
			continue
		}
		var ports, atomics, state, mtu, lid, link C.int
		if r := C.mbPortInfo(ctx, C.int(port), &ports, &atomics, &state, &mtu, &lid, &link); r != 0 {
			why = fmt.Sprintf("query port %d: %v", port, syscall.Errno(r))
			break
		}
		if state != portActive {
			why = fmt.Sprintf("port %d is not active (state %d)", port, int(state))
			if port >= int(ports) {
				break
			}
			continue
		}
		dev := &device{ctx: ctx, portNum: port, gidIndex: gidIndex, name: name}
		dev.port = rdma.Port{LID: uint16(lid), MTU: uint8(mtu), Atomics: atomics != 0}
		if r := C.mbGid(ctx, C.int(port), C.int(gidIndex), unsafe.Pointer(&dev.port.GID[0])); r != 0 {
			why = fmt.Sprintf("port %d: GID %d: %v", port, gidIndex, syscall.Errno(r))
			break
		}
		if dev.pd = C.mbPd(ctx); dev.pd == nil {
			why = "cannot allocate a protection domain"
			break
		}
		return dev, ""
	}
	C.mbClose(ctx)
	return nil, why
}

// device is an opened HCA port.
type device struct {
	ctx      *C.struct_ibv_context
	pd       *C.struct_ibv_pd
	portNum  int
	gidIndex int
	name     string
	port     rdma.Port
}

func (d *device) Port() rdma.Port { return d.port }

func (d *device) Register(addr, size uint64, fd int, off uint64) (rdma.MemoryRegion, error) {
	var mr *C.struct_ibv_mr
	var err error
	if fd >= 0 {
		mr, err = C.mbRegDmabuf(d.pd, C.uint64_t(off), C.size_t(size), C.uint64_t(addr), C.int(fd))
	} else {
		mr, err = C.mbReg(d.pd, C.uint64_t(addr), C.size_t(size))
	}
	if mr == nil {
		return nil, fmt.Errorf("%s: register %d bytes at 0x%x (dma-buf %v): %v", d.name, size, addr, fd >= 0, err)
	}
	return &region{mr: mr}, nil
}

func (d *device) HostBuffer(n int) ([]byte, rdma.MemoryRegion, error) {
	p := C.mbAlignedAlloc(C.size_t(n))
	if p == nil {
		return nil, nil, fmt.Errorf("%s: allocate %d bytes", d.name, n)
	}
	mr, err := C.mbReg(d.pd, C.uint64_t(uintptr(p)), C.size_t(n))
	if mr == nil {
		C.free(p)
		return nil, nil, fmt.Errorf("%s: register %d host bytes: %v", d.name, n, err)
	}
	return unsafe.Slice((*byte)(p), n), &region{mr: mr, owned: p}, nil
}

func (d *device) NewQueuePair(depth int) (rdma.QueuePair, error) {
	cq := C.mbCq(d.ctx, C.int(depth))
	if cq == nil {
		return nil, fmt.Errorf("%s: create a completion queue of %d", d.name, depth)
	}
	qp, err := C.mbQp(d.pd, cq, C.int(depth))
	if qp == nil {
		C.mbFreeCq(cq)
		return nil, fmt.Errorf("%s: create a queue pair: %v", d.name, err)
	}
	q := &queuePair{dev: d, qp: qp, cq: cq}
	if r := C.mbQpInit(qp, C.int(d.portNum)); r != 0 {
		q.Close()
		return nil, fmt.Errorf("%s: queue pair to INIT: %v", d.name, syscall.Errno(r))
	}
	return q, nil
}

func (d *device) Close() error {
	var first error
	if r := C.mbFreePd(d.pd); r != 0 {
		first = fmt.Errorf("%s: free protection domain: %v", d.name, syscall.Errno(r))
	}
	if r := C.mbClose(d.ctx); r != 0 && first == nil {
		first = fmt.Errorf("%s: close: %v", d.name, syscall.Errno(r))
	}
	return first
}

type region struct {
	mr    *C.struct_ibv_mr
	owned unsafe.Pointer // host memory allocated with the region
}

func (r *region) LKey() uint32 { return uint32(C.mbLkey(r.mr)) }
func (r *region) RKey() uint32 { return uint32(C.mbRkey(r.mr)) }
func (r *region) Close() error {
	rc := C.mbDereg(r.mr)
	if r.owned != nil {
		C.free(r.owned)
	}
	if rc != 0 {
		return fmt.Errorf("deregister memory: %v", syscall.Errno(rc))
	}
	return nil
}

type queuePair struct {
	dev      *device
	qp       *C.struct_ibv_qp
	cq       *C.struct_ibv_cq
	ids      [32]C.uint64_t
	statuses [32]C.int
}

func (q *queuePair) Number() uint32 { return uint32(C.mbQpNum(q.qp)) }

func (q *queuePair) Connect(local, remote rdma.Port, rqpn, lpsn, rpsn uint32) error {
	global := remote.GID != [16]byte{}
	mtu := min(local.MTU, remote.MTU)
	if r := C.mbQpRtr(q.qp, C.int(q.dev.portNum), C.int(mtu), C.uint32_t(rqpn), C.uint32_t(rpsn), C.int(remote.LID),
		unsafe.Pointer(&remote.GID[0]), C.int(b2i(global)), C.int(q.dev.gidIndex)); r != 0 {
		return fmt.Errorf("%s: queue pair to RTR (remote LID %d, QPN %d): %v", q.dev.name, remote.LID, rqpn, syscall.Errno(r))
	}
	if r := C.mbQpRts(q.qp, C.uint32_t(lpsn)); r != 0 {
		return fmt.Errorf("%s: queue pair to RTS: %v", q.dev.name, syscall.Errno(r))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (q *queuePair) PostWrite(id, laddr uint64, lkey uint32, n, raddr uint64, rkey uint32) error {
	if n > 1<<31 {
		return fmt.Errorf("RDMA write of %d bytes: at most 2 GiB per work request", n)
	}
	return q.post(id, false, laddr, lkey, n, raddr, rkey, 0)
}

func (q *queuePair) PostFetchAdd(id, laddr uint64, lkey uint32, raddr uint64, rkey uint32, add uint64) error {
	return q.post(id, true, laddr, lkey, 8, raddr, rkey, add)
}

func (q *queuePair) post(id uint64, atomic bool, laddr uint64, lkey uint32, n, raddr uint64, rkey uint32, add uint64) error {
	r := C.mbPost(q.qp, C.uint64_t(id), C.int(b2i(atomic)), C.uint64_t(laddr), C.uint32_t(lkey), C.uint32_t(n), C.uint64_t(raddr), C.uint32_t(rkey), C.uint64_t(add))
	if r != 0 {
		return syscall.Errno(r)
	}
	return nil
}

func (q *queuePair) Poll(out []rdma.Completion) (int, error) {
	n := C.mbPoll(q.cq, C.int(min(len(out), len(q.ids))), &q.ids[0], &q.statuses[0])
	if n < 0 {
		return 0, fmt.Errorf("%s: poll completion queue: %d", q.dev.name, int(n))
	}
	for i := 0; i < int(n); i++ {
		out[i] = rdma.Completion{ID: uint64(q.ids[i]), Status: int(q.statuses[i])}
		if out[i].Status != 0 {
			out[i].Err = C.GoString(C.mbStatus(q.statuses[i]))
		}
	}
	return int(n), nil
}

func (q *queuePair) Close() error {
	var first error
	if r := C.mbFreeQp(q.qp); r != 0 {
		first = fmt.Errorf("%s: destroy queue pair: %v", q.dev.name, syscall.Errno(r))
	}
	if r := C.mbFreeCq(q.cq); r != 0 && first == nil {
		first = fmt.Errorf("%s: destroy completion queue: %v", q.dev.name, syscall.Errno(r))
	}
	return first
}
