package channels_test

// The core's external tests build meshes over every transport.
import _ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
