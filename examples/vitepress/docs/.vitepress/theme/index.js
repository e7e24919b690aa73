import DefaultTheme from 'vitepress/theme';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    // Custom elements live in the browser: define them there, not in the server-side render.
    // The trained model first (for <model-attention model> on model.md), so it is registered
    // before any element is drawn; a site without the model imports only the elements.
    if (!import.meta.env.SSR) import('attention-lab/model').then(() => import('attention-lab/elements'));
  },
};
