// Package tree models diperf past one controller: a tree of controllers
// whose leaves own the testers of a region and keep their raw samples,
// sending one mergeable summary per second upward (docs/design/
// 013-controller-tree.md). It holds the summary's wire encoding and merge,
// a benchmark measuring both with the project's HDR histogram library, and
// the load model that turns N testers, their rate and the fan-out into each
// level's load, the depth and the live view's delay.
package tree
