//go:build !unix

package stdio

// catchSIGPIPE has nothing to do where a broken pipe raises no signal.
func catchSIGPIPE() (release func()) { return func() {} }
