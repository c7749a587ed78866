// The terminal's size, following resizes. `fixed` pins it (tests, benchmarks).
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface Size {
  columns: number;
  rows: number;
}

export function useTerminalSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  const read = (): Size => fixed ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, fixed?.columns, fixed?.rows]);
  return fixed ?? size;
}
