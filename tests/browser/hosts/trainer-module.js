// A site's own module that imports the elements module, as a bundler's output would.
import '../../../dist/attention-lab-elements.mjs';
