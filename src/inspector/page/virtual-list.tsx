import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

/** Props of {@link VirtualList}. */
export interface VirtualListProps {
  count: number;
  /** Every row has this height in pixels (fixed: rows never re-flow as data arrives). */
  rowHeight: number;
  renderRow: (index: number) => ComponentChildren;
  /** Rows rendered beyond each edge of the viewport. @default 8 */
  overscan?: number;
  /** The row to scroll into view and focus (its element must carry `data-row-index`). */
  focusIndex?: number;
  label: string;
  testId?: string;
  /** Shown as `data-render-ms` (the time the data took to reach the screen, for measurements). */
  renderMs?: number | undefined;
}

/**
 * A scrolling list that renders only the rows in view (plus `overscan`): its inner height is
 * `count * rowHeight`, so appending rows never moves the ones on screen.
 */
export function VirtualList(props: VirtualListProps) {
  const { count, rowHeight, overscan = 8 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    let frame = 0;
    const measure = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setView({ top: element.scrollTop, height: element.clientHeight }));
    };
    setView({ top: element.scrollTop, height: element.clientHeight });
    element.addEventListener("scroll", measure, { passive: true });
    const resize = new ResizeObserver(measure);
    resize.observe(element);
    return () => {
      cancelAnimationFrame(frame);
      element.removeEventListener("scroll", measure);
      resize.disconnect();
    };
  }, []);

  useEffect(() => {
    const element = scroller.current;
    const index = props.focusIndex;
    if (!element || index === undefined || index < 0 || index >= count) return;
    const top = index * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight)
      element.scrollTop = top + rowHeight - element.clientHeight;
    requestAnimationFrame(() => element.querySelector<HTMLElement>(`[data-row-index="${index}"]`)?.focus());
  }, [props.focusIndex]);

  const first = Math.max(0, Math.floor(view.top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + overscan);
  const rows: ComponentChildren[] = [];
  for (let index = first; index < last; index++) rows.push(props.renderRow(index));
  return (
    <div
      class="virtual"
      ref={scroller}
      role="tree"
      aria-label={props.label}
      data-testid={props.testId}
      data-count={count}
      data-render-ms={props.renderMs}
    >
      <div class="virtual-inner" style={{ height: `${count * rowHeight}px` }}>
        <div class="virtual-window" style={{ transform: `translateY(${first * rowHeight}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
