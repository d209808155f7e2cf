package params

// The kernel of kernels/allgather_blockput.cu. It has the parameters of allgather_put, but
// its channel array is [block][peer].
var AllgatherBlockput = declareFunc[AllgatherPutArgs]("allgather_blockput")
