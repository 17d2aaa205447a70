// Package benchtest makes the results of `make bench`'s parts without
// running them, with chosen figures, for the tests of the reports, the
// goals and the plots; and the checks those tests share. It imports the
// provisioning and memory packages, whose own tests use it from external
// test packages (package x_test), and must not import the others, whose
// tests use it too: Go refuses an import cycle in a test.
package benchtest
