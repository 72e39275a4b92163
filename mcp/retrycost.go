package mcp

import (
	"strconv"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// boundArguments refuses arguments holding more than Limits.ArgumentValues
// values. The binding of a requestState covers the call's arguments, so a
// retry's digest reads all of them before the state is opened, before the
// method validates anything: without this bound a retry of ~1 MB holding
// hundreds of thousands of values cost what its digest cost, whether or
// not its state opened (design record 019). The body is bounded before it is even
// parsed (Limits.BodyBytes); this bounds what it may hold.
func (req *request) boundArguments(args []byte) error {
	max := req.handler.cfg.limits.ArgumentValues
	if max <= 0 || jsonrpc.CountValues(args, max) <= max {
		return nil
	}
	return NewError(CodeInvalidParams, "Invalid params: arguments hold more than "+strconv.Itoa(max)+" values; send fewer items per call").
		WithData(map[string]any{"reason": "too_many_values", "maxValues": max})
}
