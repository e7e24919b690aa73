// The one colour scheme taken from d3-scale-chromatic. An ES module on purpose: importing a
// name lets esbuild leave the library's other schemes out of the bundle (a CommonJS require
// of the package would keep all of them).
export { interpolateRdBu } from 'd3-scale-chromatic';
