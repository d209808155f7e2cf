package bootstrap

// CheckAddr checks the syntax of a root address as CreateUniqueID and InitializeAddr
// take it ("", ":port", "[interface:]ip:port", "name:port"), without touching the network,
// so that a command line can be refused before any work.
func CheckAddr(addr string) error {
	_, err := parseAddrSpec(addr)
	return err
}

// CheckTimeoutEnv returns the error New would return for an invalid TimeoutEnv, or nil
// when it is unset, empty or valid.
func CheckTimeoutEnv() error {
	_, err := timeoutFromEnv()
	return err
}
