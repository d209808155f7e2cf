// Package all registers every collective: a program that runs collectives (the worker, the
// front end's help) imports it for its side effects. Adding a collective is one folder
// under collectives/ plus one line in all.go. Its tests run every collective and
// algorithm together: selection, kernel declarations against the .cu sources, and the
// stand-in GPU runs of the algorithms that span several collectives.
package all
