// Nothing to declare: this module exists for its `link "stdc++"` (module.modulemap), which puts
// libstdc++ into the executable's own list of libraries, ahead of the Swift runtime, instead of
// last (where it arrives as libswiftCore's dependency): libstdc++ is now the third place the loader
// searches (after the executable and libsqlite3), where it was the ninth.
//
// The dynamic loader looks every symbol up along that list, in order, and libstdc++'s own
// relocations are the largest share of the lookups at start (≈1,660 of ≈4,060 for
// `clubhouse scorecard player list`: libstdc++ is not linked -Bsymbolic, so each of its references
// to itself is searched for from the top). Each now costs two looks into other libraries' hash
// tables instead of eight (≈350,000 instructions fewer at every start when it was measured with
// SQLite linked in, one look instead of seven; BENCHMARKS.md, "Issue 33, item 5: loading").
// libstdc++ defines no symbol that the libraries it now precedes also define, so no symbol binds
// anywhere else. Imported by the executable's
// main.swift only: its autolink entry is the last object's, and SwiftPM's link puts the entries of
// system libraries ahead of the Swift runtime's, in object order.
