package flows

// The stand-in tests build meshes, which connect over the registered transports.
import _ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
