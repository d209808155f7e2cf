// Package collectivestest holds helpers for the tests of the collectives, the harness and
// the worker: lookups that fail the test instead of returning an error.
package collectivestest
