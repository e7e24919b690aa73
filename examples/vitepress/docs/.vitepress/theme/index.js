import DefaultTheme from 'vitepress/theme';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    // Custom elements live in the browser: define them there, not in the server-side render.
    if (!import.meta.env.SSR) import('attention-lab/elements');
  },
};
