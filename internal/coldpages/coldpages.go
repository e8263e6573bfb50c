// Package coldpages gives back the pages of the running executable that
// only its start-up touched.
//
// Go runs every linked package's init in every process. In chatls that is
// ~280 packages (the provider SDKs with gRPC, OpenCensus and Google auth
// among them), and the kernel maps each page they touch, plus up to 15
// neighbours per fault (fault-around): an idle server has ~30 MB of its
// 84 MB binary resident, though typing needs a fraction of that
// (docs/performance.md). Release unmaps those pages once start-up is over;
// the kernel maps back from the page cache, at the cost of a minor fault,
// each page the server touches again.
package coldpages
