// Package routertest checks that routes registered as tools, resource
// templates and prompts run on the routers Go services use — net/http's
// ServeMux, chi (the endpoint outside the router, inside it, inside a
// Route or Mount sub-router, behind StripPrefix) and gorilla/mux — exactly
// as if the request had come from the network, with the caller's identity
// in the form the service's own middleware expects. It is a module of its
// own so that the library does not depend on the routers; it holds only
// tests.
package routertest
