// esbuild bundles the stylesheets a module imports into the console's one stylesheet.
declare module '*.css';
