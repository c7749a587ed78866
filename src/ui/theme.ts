// Colours: only the 16 basic ANSI names (they stay readable in tmux's 256-colour mode and on light
// and dark backgrounds) and none at all when NO_COLOR is set (https://no-color.org: any non-empty value).
import asciichart from 'asciichart';

export function colorsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

export const palette = {
  accent: 'cyan',
  good: 'green',
  warn: 'yellow',
  bad: 'red',
  dim: 'gray',
  title: 'blue',
} as const;

export type PaletteName = keyof typeof palette;

/** asciichart escapes per series role (basic SGR colours only). */
export const chartColors = {
  main: asciichart.cyan,
  average: asciichart.yellow,
  easy: asciichart.green,
  medium: asciichart.blue,
  hard: asciichart.magenta,
  eval: asciichart.red,
  budget: asciichart.red,
} as const;
